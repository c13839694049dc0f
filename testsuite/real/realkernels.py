"""The vocabulary of the real-kernel runner (run_real.py): a Dispatch says what a project's host code
would encode for one kernel (file, host name, buffers by index, function constants, grid), a Case
builds one from random inputs and checks the outputs against numpy.

Case modules (mlx_cases.py, ggml_cases.py) register cases with @case; each case function gets a
numpy Generator and returns (Dispatch, check), where check(outputs) raises AssertionError (numpy's
testing functions) when an output is wrong. outputs maps a buffer index to the array read back, in
the dtype the buffer was given with.

Nothing of the checkouts is copied: a Dispatch names its source relative to the checkout root.
"""
import struct
from dataclasses import dataclass, field

import numpy as np

CASES = []


@dataclass(frozen=True)
class View:
    """A binding of another buffer's allocation, as Metal's setBuffer(buffer, offset, index) binds
    one MTLBuffer at several indices and offsets (`mslsim run --buffer I=@J+OFFSET`)."""
    of: int              # the index whose array is the allocation
    offset: int = 0      # bytes


@dataclass
class Dispatch:
    source: str                      # path relative to the checkout root
    kernel: str                      # host name, as the project's host code builds it
    grid: tuple                      # threads (dispatchThreads) or threadgroups (dispatchThreadgroups)
    threadgroup: tuple
    buffers: dict                    # index -> numpy array (struct arguments as uint8 arrays) or View
    outputs: list                    # indices read back after the dispatch
    constants: dict = field(default_factory=dict)           # function constant index -> bool/int/float
    threadgroup_memory: dict = field(default_factory=dict)  # [[threadgroup(n)]] index -> bytes
    dispatch: str = "threads"        # "threads" (dispatchThreads) or "threadgroups"
    includes: tuple = ()             # include dirs relative to the checkout root


@dataclass
class Case:
    name: str
    corpus: str                      # "mlx" or "ggml"
    build: object                    # rng -> (Dispatch, check)
    xfail: str = None                # why it is expected to fail today (a known gap), or None
    xfail_checks: tuple = ("default", "all", "none", "threads")  # the modes the xfail applies to


def case(corpus, name=None, xfail=None, xfail_checks=("default", "all", "none", "threads")):
    def register(fn):
        CASES.append(Case(name or fn.__name__, corpus, fn, xfail, tuple(xfail_checks)))
        return fn
    return register


# --- struct arguments (setBytes) -------------------------------------------------------------------

_FORMATS = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I", "i64": "q",
            "u64": "Q", "f32": "f", "f16": "e", "bool": "?"}


def cstruct(*fields):
    """The bytes of a C struct with natural alignment: fields are (type, value) pairs with type one
    of i8 u8 i16 u16 i32 u32 i64 u64 f32 f16 bool, or (type, [values]) for an array member."""
    out = bytearray()
    biggest = 1
    for kind, value in fields:
        fmt = _FORMATS[kind]
        size = struct.calcsize(fmt)
        biggest = max(biggest, size)
        out += b"\0" * (-len(out) % size)
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            out += struct.pack("<" + fmt, v)
    out += b"\0" * (-len(out) % biggest)
    return np.frombuffer(bytes(out), np.uint8).copy()


_DTYPES = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
           "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f16": np.float16,
           "bool": np.bool_}


def scalar(kind, value):
    """A setBytes of one scalar (int, float, size_t...), typed so that mslsim can check it against
    the argument (integers of one width match either signedness, as Metal binds bytes)."""
    return np.array([value], _DTYPES[kind])


def vector(kind, values):
    """A set_vector_bytes of a std::vector (shape, strides)."""
    values = list(values) or [0]   # Metal refuses zero-length bytes; MLX binds one element then
    return np.array(values, _DTYPES[kind])


# --- bfloat16 as bit patterns ----------------------------------------------------------------------

def to_bf16(x):
    """float32 values -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)
