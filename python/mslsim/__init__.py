"""mslsim: MLX's ``mx.fast.metal_kernel`` on Linux, for numpy arrays.

The Metal Shading Language kernel runs in mslsim's simulator (no GPU needed). The API is MLX's,
so code written for ``mx.fast.metal_kernel`` runs with ``mx`` replaced::

    import numpy as np
    import mslsim

    kernel = mslsim.metal_kernel(
        name="myexp", input_names=["inp"], output_names=["out"],
        source='''
            uint elem = thread_position_in_grid.x;
            T tmp = inp[elem];
            out[elem] = metal::exp(tmp);
        ''')
    a = np.random.normal(size=(4, 16)).astype(np.float16)
    (b,) = kernel(inputs=[a], template=[("T", mslsim.float32)], grid=(a.size, 1, 1),
                  threadgroup=(256, 1, 1), output_shapes=[a.shape], output_dtypes=[a.dtype])
    assert np.allclose(b, np.exp(a), rtol=1e-3)

``mslsim.fast.metal_kernel`` is the same function (``import mslsim as mx`` then
``mx.fast.metal_kernel``). The contract followed, rule by rule, is MLX's (generated signature and
kernel name byte for byte, binding order, dispatchThreads semantics, error texts).

Factory: ``metal_kernel(name, input_names, output_names, source, header="",
ensure_row_contiguous=True, atomic_outputs=False, compile_options=None)`` (positional or keyword);
``compile_options`` is None or ``{"math_mode": "safe" | "relaxed" | "fast"}``.

Call (keyword-only): ``kernel(inputs=[...], output_shapes=[...], output_dtypes=[...],
grid=(x, y, z), threadgroup=(x, y, z), template=None, init_value=None, verbose=False,
stream=None)`` returns a list of new row-contiguous numpy arrays (bfloat16 outputs as
:class:`bfloat16_array`). Outputs are uninitialised (mslsim fills them with a NaN-like pattern)
unless ``init_value`` is given.

Inputs, and how they map to MLX arrays:

* numpy arrays of any layout play the role of MLX arrays *and their views*: a transposed,
  sliced, negative-stride or broadcast (stride 0) numpy view is what the corresponding MLX view
  is. With ``ensure_row_contiguous=True`` (default) non-row-contiguous inputs are copied first;
  with ``False`` the kernel sees the view as it is, through ``<name>_shape``/``_strides``
  (element strides)/``_ndim``. A row-contiguous view with an offset (``a[2:]``) is bound at its
  first element. (MLX itself would copy a numpy array into a fresh contiguous mx.array.)
  Negative strides put elements *below* the bound pointer: index with a signed 64-bit offset,
  ``elem_to_loc(int64_t(elem), ...)``; the docs' ``uint loc`` wraps (on a Mac too), and mslsim
  reports the resulting out-of-bounds read as a :class:`KernelError`.
* numpy dtypes map to MLX's; numpy ``float64`` and ``complex128`` become ``float32`` and
  ``complex64`` (copied), as ``mx.array(numpy_array)`` does. Kernels cannot get ``float64``
  inputs from numpy (Metal has no double anyway). Other numpy dtypes (strings, objects,
  float128, datetimes) raise ValueError "Cannot convert numpy array to mlx array.".
* Python scalars become 0-d arrays with MLX's rules: ``bool`` -> bool_, ``int`` -> int32 (int64
  outside the int32 range), ``float`` -> float32, ``complex`` -> complex64. numpy scalars keep
  their dtype (``np.float64`` counts as a Python float).
* nested lists/tuples are converted as ``mx.array(list)`` would: float32, int32 (int64 when a
  value needs it), bool_, complex64.
* bfloat16: :class:`bfloat16_array` (or an ml_dtypes bfloat16 numpy array, if you have it).

Dtypes: ``mslsim.float32, float16, bfloat16, float64, complex64, bool_, int8, int16, int32,
int64, uint8, uint16, uint32, uint64`` (MLX's names, instances of :class:`Dtype`). Wherever MLX
takes a dtype (``output_dtypes``, template values) mslsim also takes numpy dtypes
(``np.float32``, ``np.dtype("float16")``, ``a.dtype``) and names (``"float32"``).

bfloat16 (numpy has no such dtype): :class:`bfloat16_array` holds uint16 bit patterns and a
shape. ``mslsim.to_bfloat16(x)`` rounds floats to nearest even; ``.to_float32()`` or
``np.asarray(b)`` converts back exactly; ``.bits`` is the raw uint16 numpy array;
``bfloat16_array(bits)`` wraps bit patterns. Round trips are exact.

Templates: ``template=[("name", value), ...]`` in order, value a dtype (``typename``), a Python
``bool`` (``bool``; checked before int) or an ``int`` (``int``). numpy integer and numpy bool
scalars are accepted too (MLX would refuse them). Anything else raises MLX's ValueError.

Streams: ``stream=None``, ``mslsim.gpu``, ``"gpu"`` or a GPU :class:`Stream` run the kernel;
``mslsim.cpu`` / ``"cpu"`` raise MLX's ValueError "[metal_kernel] Only supports the GPU.".

Errors: ValueError and RuntimeError with MLX's texts (sizes, template arguments, compile options,
the threadgroup size limit of 1024, "[metal::Device] Unable to build metal library from source"
followed by diagnostics that point into your ``source``/``header``). Where MLX would report a
problem only on a Mac's GPU (or not at all), mslsim's checks raise :class:`KernelError` (a
RuntimeError) with a report: out-of-bounds accesses, barrier divergence, faults, timeouts.

The simulator is synchronous: the call returns computed numpy arrays (MLX's lazy evaluation and
``mx.eval`` are not needed). The GIL is released while a kernel runs; kernels run one at a time.
``mslsim.timeout_seconds`` (default 60) bounds one kernel run. ``mslsim.workers`` (default 0: one
per core, and one when races or uninitialised reads are checked, so that reports name the same
threads every run) is how many threads run threadgroups at once.

Checks (mslsim's addition; see docs/checks.md): which checks run is, in order of precedence, the
call's ``check=`` keyword, the innermost ``with mslsim.checks("..."):`` block, the environment
variable ``MSLSIM_CHECK``, and the default ``"bounds,sync"``. Values are those of the CLI's
``--check``: a comma-separated list of ``races``, ``bounds``, ``uninit``, ``sync``, ``simd``, or
``all`` or ``none``.
"""

import atexit as _atexit
import contextlib as _contextlib
import operator as _operator
import os as _os
import sys as _sys
import types as _pytypes

import numpy as _np

from ._mslsim import KernelError, _MetalKernel, build_info
from ._mslsim import suppression_summary as _summary_of_suppressions
from .library import Library, LibraryKernel
from ._types import (Device, DeviceType, Dtype, Stream, bfloat16, bfloat16_array, bool_,
                     complex64, cpu, default_device, default_stream, float16, float32, float64,
                     gpu, int8, int16, int32, int64, new_stream, resolve_dtype, to_bfloat16,
                     uint8, uint16, uint32, uint64)

__all__ = [
    "metal_kernel", "MetalKernel", "KernelError", "fast", "array", "Library", "LibraryKernel",
    "Dtype", "bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "bfloat16", "complex64",
    "bfloat16_array", "to_bfloat16",
    "Device", "DeviceType", "Stream", "cpu", "gpu", "default_device", "default_stream",
    "new_stream", "timeout_seconds", "workers", "checks", "suppressions", "findings", "build_info",
]

timeout_seconds = 60.0
workers = 0
# A suppressions file (docs/checks.md): findings its rules match do not raise. How many it set
# aside, and its rules that matched nothing, are printed on stderr when the interpreter exits.
suppressions = _os.environ.get("MSLSIM_SUPPRESSIONS") or None
# What a call with errors does: "fail" raises KernelError; "report" prints them on stderr and
# returns the results (default $MSLSIM_FINDINGS, else "fail").
findings = _os.environ.get("MSLSIM_FINDINGS") or "fail"


def _suppressions():
    return "" if suppressions is None else _os.fspath(suppressions)


def _report_findings():
    if findings not in ("fail", "report"):
        raise ValueError("mslsim.findings must be 'fail' or 'report', not %r" % (findings,))
    return findings == "report"


@_atexit.register
def _summarise_suppressions():
    for line in _summary_of_suppressions():
        _sys.stderr.write("mslsim: %s\n" % line)


def _progress_callback(progress):
    """``progress=`` of a kernel call as what the extension takes: None or a callable (phase,
    done, total). None means on when stderr is a terminal: a line on stderr, redrawn, erased at
    the end (in the callback's last call, when done reaches total)."""
    import sys
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if progress is False:
        return None
    if callable(progress):
        return progress

    def line(phase, done, total):
        text = "mslsim: %s: %d of %d threadgroups" % (phase, done, total)
        sys.stderr.write("\r\x1b[K" + (text if done < total else ""))
        sys.stderr.flush()
    return line

# The version of the mslsim build (build_info() also gives its commit and LLVM's version).
__version__ = build_info()["version"]

_checks_stack = []


@_contextlib.contextmanager
def checks(spec):
    """Run the kernels called inside the block with these checks (e.g. ``"all"``)."""
    _checks_stack.append(str(spec))
    try:
        yield
    finally:
        _checks_stack.pop()


def _active_checks(explicit):
    if explicit is not None:
        return str(explicit)
    if _checks_stack:
        return _checks_stack[-1]
    return _os.environ.get("MSLSIM_CHECK", "bounds,sync")


def _workers():
    n = int(workers)
    if not 0 <= n <= 1024:
        raise ValueError(f"mslsim.workers must be 0 (mslsim's default) to 1024, not {workers!r}")
    return n

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_TEMPLATE_ERROR = "[metal_kernel] Invalid template argument. Must be `mlx.core.Dtype`, `int` or `bool`."


# ---------------------------------------------------------------------------------------------
# inputs: numpy views, Python scalars, lists, bfloat16 -> (MLX dtype name, numpy array)


def _from_numpy(a):
    """A numpy array as the (dtype name, array) the C++ side binds; no copy unless needed."""
    if a.dtype.name == "bfloat16" and a.dtype.itemsize == 2:  # ml_dtypes
        return _from_bits(a.view(_np.uint16))
    kind, size = a.dtype.kind, a.dtype.itemsize
    if kind == "f" and size == 8:
        a = a.astype(_np.float32)
    elif kind == "c" and size == 16:
        a = a.astype(_np.complex64)
    elif not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    d = resolve_dtype(a.dtype) if a.dtype.kind in "biufc" else None
    if d is None or d is float64:
        raise ValueError("Cannot convert numpy array to mlx array.")
    return d.name, _bindable(a)


def _from_bits(bits):
    return "bfloat16", _bindable(bits)


def _bindable(a):
    """Aligned, with strides that are whole elements; otherwise a contiguous copy."""
    item = a.dtype.itemsize
    if not a.flags.aligned or any(s % item for s in a.strides):
        a = _np.ascontiguousarray(a)
    return a


def _python_int(value):
    if not (_INT64_MIN <= value <= _INT64_MAX):
        raise OverflowError("[metal_kernel] Python int %d does not fit int64." % value)
    if _INT32_MIN <= value <= _INT32_MAX:
        return _np.array(value, dtype=_np.int32)
    return _np.array(value, dtype=_np.int64)


def _from_list(value):
    a = _np.asarray(value)
    if a.dtype.kind == "f":
        a = a.astype(_np.float32)
    elif a.dtype.kind == "c":
        a = a.astype(_np.complex64)
    elif a.dtype.kind == "i" and a.dtype.itemsize == 8:
        if a.size == 0 or (a.min() >= _INT32_MIN and a.max() <= _INT32_MAX):
            a = a.astype(_np.int32)
    elif a.dtype.kind == "u" and a.dtype.itemsize == 8:
        raise OverflowError("[metal_kernel] Python int in %r does not fit int64." % (value,))
    elif a.dtype.kind not in "b":
        raise ValueError("Invalid type  %s received in array initialization." % type(value).__name__)
    return a


def _to_input(value):
    if isinstance(value, bfloat16_array):
        return _from_bits(value.bits)
    if isinstance(value, _np.ndarray):
        return _from_numpy(value)
    if isinstance(value, bool):
        return "bool_", _np.array(value, dtype=_np.bool_)
    if isinstance(value, int):
        a = _python_int(value)
        return resolve_dtype(a.dtype).name, a
    if isinstance(value, float):  # np.float64 too, as in MLX
        return "float32", _np.array(value, dtype=_np.float32)
    if isinstance(value, complex):
        return "complex64", _np.array(value, dtype=_np.complex64)
    if isinstance(value, _np.generic):
        return _from_numpy(_np.asarray(value))
    if isinstance(value, (list, tuple)):
        return _from_numpy(_from_list(value))
    if hasattr(value, "__array__"):
        return _from_numpy(_np.asarray(value))
    raise ValueError("Invalid type  %s received in array initialization." % type(value).__name__)


def array(value, dtype=None):
    """``mx.array(value, dtype)`` for numpy: the numpy array (or :class:`bfloat16_array`) that
    mslsim would bind for ``value``, converted with MLX's rules (Python floats -> float32, ints
    -> int32, numpy float64 -> float32, ...), then cast to ``dtype`` if given."""
    if isinstance(value, bfloat16_array):
        result = value.copy()
    else:
        name, a = _to_input(value)
        result = bfloat16_array(a.copy()) if name == "bfloat16" else _np.array(a)
    if dtype is None:
        return result
    d = resolve_dtype(dtype)
    if d is None:
        raise TypeError("mslsim.array: %r is not a dtype" % (dtype,))
    if d is bfloat16:
        return to_bfloat16(result)
    return _np.asarray(result).astype(d.dtype)


# ---------------------------------------------------------------------------------------------
# the other call arguments


def _output_dtype(value):
    d = resolve_dtype(value)
    if d is None:
        raise TypeError("[metal_kernel] output_dtypes: %r is not a dtype (use mslsim.float32, a "
                        "numpy dtype or a dtype name)" % (value,))
    return d.name


def _shape(value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError("[metal_kernel] output_shapes: each shape must be a sequence of ints, "
                        "got %r" % (value,))
    dims = [_operator.index(d) for d in value]
    for d in dims:
        if not (0 <= d <= _INT32_MAX):
            raise ValueError("[metal_kernel] output_shapes: invalid dimension %d in %r" % (d, value))
    return dims


def _dims3(what, value):
    try:
        dims = tuple(_operator.index(d) for d in value)
    except TypeError:
        raise TypeError("[metal_kernel] `%s` must be a tuple of three ints, got %r" % (what, value)) from None
    if len(dims) != 3:
        raise TypeError("[metal_kernel] `%s` must be a tuple of three ints, got %r" % (what, value))
    for d in dims:
        if not (_INT32_MIN <= d <= _INT32_MAX):
            raise TypeError("[metal_kernel] `%s` values must fit a C int, got %r" % (what, value))
    return dims


def _template_arg(name, value):
    if isinstance(value, (bool, _np.bool_)):  # before int: True is a bool, not 1
        return (name, "bool", bool(value))
    if isinstance(value, (int, _np.integer)):
        value = int(value)
        if not (_INT32_MIN <= value <= _INT32_MAX):
            raise ValueError("[metal_kernel] Template argument `%s` = %d does not fit a 32-bit "
                             "int." % (name, value))
        return (name, "int", value)
    d = resolve_dtype(value)
    if d is None:
        raise ValueError(_TEMPLATE_ERROR)
    return (name, "dtype", d.name)


def _template(value):
    if value is None:
        return []
    args = []
    for item in value:
        try:
            name, arg = item
        except (TypeError, ValueError):
            raise TypeError("[metal_kernel] `template` must be a list of (name, value) pairs, got "
                            "%r" % (item,)) from None
        if not isinstance(name, str):
            raise TypeError("[metal_kernel] template parameter names must be str, got %r" % (name,))
        args.append(_template_arg(name, arg))
    return args


def _is_cpu_stream(stream):
    if stream is None:
        return False
    if isinstance(stream, Stream):
        stream = stream.device
    if isinstance(stream, str) and stream in ("cpu", "gpu"):
        return stream == "cpu"
    if isinstance(stream, Device):
        return stream.type == "cpu"
    device = getattr(stream, "device", None)  # another library's stream-like object
    if device is not None and device is not stream:
        return _is_cpu_stream(device)
    kind = getattr(stream, "type", None)
    if kind is not None:
        return "cpu" in str(kind).lower()
    raise TypeError("[metal_kernel] `stream` must be None, a Stream, a Device (mslsim.gpu) or "
                    "'gpu'/'cpu', got %r" % (stream,))


# ---------------------------------------------------------------------------------------------
# the factory and the kernel object


class MetalKernel:
    """What :func:`metal_kernel` returns; call it with keyword arguments only."""

    __slots__ = ("_kernel", "__weakref__")

    def __init__(self, kernel):
        self._kernel = kernel

    name = property(lambda self: self._kernel.name)
    input_names = property(lambda self: self._kernel.input_names)
    output_names = property(lambda self: self._kernel.output_names)
    source = property(lambda self: self._kernel.source)
    header = property(lambda self: self._kernel.header)

    def __call__(self, *, inputs, output_shapes, output_dtypes, grid, threadgroup, template=None,
                 init_value=None, verbose=False, stream=None, check=None, progress=None):
        """Run the kernel.

        Args:
          inputs (list): arrays (numpy, any layout; :class:`bfloat16_array`), Python scalars or
            lists, one per input name.
          output_shapes (list[Sequence[int]]): one shape per output name.
          output_dtypes (list[Dtype]): one dtype per output name (mslsim, numpy or a name).
          grid (tuple[int, int, int]): the number of threads (dispatchThreads).
          threadgroup (tuple[int, int, int]): threads per threadgroup (clamped to the grid).
          template (list[tuple[str, bool | int | Dtype]], optional): template arguments, in order.
          init_value (float, optional): fill every output with this before the kernel runs.
          verbose (bool): print the generated kernel source.
          stream: None or the GPU (a CPU stream is an error, as in MLX).
          check (str, optional): mslsim's checks for this call (see the module docstring).
          progress (bool | callable, optional): a live progress line on stderr while the kernel
            runs (True), none (False), or a callable getting ``(phase, done, total)`` about every
            100 ms; default: on when stderr is a terminal (never under pytest's capture).

        Returns:
          list: one new row-contiguous numpy array (bfloat16: :class:`bfloat16_array`) per output.
        """
        # Argument types first (MLX's binding converts them before running anything)...
        shapes = [_shape(s) for s in output_shapes]
        dtypes = [_output_dtype(d) for d in output_dtypes]
        grid = _dims3("grid", grid)
        threadgroup = _dims3("threadgroup", threadgroup)
        if init_value is not None:
            init_value = float(_np.float32(init_value))  # MLX takes an optional<float>
        cpu_stream = _is_cpu_stream(stream)
        # ...then MLX's order: inputs, template arguments, sizes, stream, generation, run.
        converted = [_to_input(x) for x in inputs]
        template_args = _template(template)
        results = self._kernel.call(converted, shapes, dtypes, grid, threadgroup, template_args,
                                    init_value, bool(verbose), cpu_stream, float(timeout_seconds),
                                    _active_checks(check), _workers(), _suppressions(),
                                    _report_findings(), _progress_callback(progress))
        del converted  # the inputs (and any copies) stay alive until the kernel has run
        return [bfloat16_array(a) if name == "bfloat16" else a for name, a in results]

    def __repr__(self):
        return "<mslsim.MetalKernel %r inputs=%r outputs=%r>" % (
            self.name, self.input_names, self.output_names)


def _math_mode(compile_options):
    if compile_options is None:
        return "safe"
    if not isinstance(compile_options, dict):
        raise ValueError("[metal_kernel] Expected `compile_options` to be a dict.")
    mode = "safe"
    for key, value in compile_options.items():
        if key == "math_mode":
            if value not in ("safe", "relaxed", "fast") or not isinstance(value, str):
                raise ValueError("[metal_kernel] Expected math_mode to be 'safe', 'relaxed', or 'fast'.")
            mode = value
        else:
            raise ValueError("[metal_kernel] Unknown compile option `%s`." % (key,))
    return mode


def _names(what, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError("metal_kernel(): `%s` must be a list of str, got %r" % (what, value))
    names = list(value)
    for n in names:
        if not isinstance(n, str):
            raise TypeError("metal_kernel(): `%s` must be a list of str, got %r" % (what, value))
    return names


def _text(what, value):
    if not isinstance(value, str):
        raise TypeError("metal_kernel(): `%s` must be a str, got %s" % (what, type(value).__name__))
    return value


def metal_kernel(name, input_names, output_names, source, header="", ensure_row_contiguous=True,
                 atomic_outputs=False, compile_options=None):
    """A custom Metal kernel, as ``mx.fast.metal_kernel``.

    Args:
      name (str): name for the kernel.
      input_names (list[str]): the parameter names of the inputs in the function signature.
      output_names (list[str]): the parameter names of the outputs in the function signature.
      source (str): the kernel *body*; the signature is generated.
      header (str): source pasted before the kernel (helpers, includes, structs).
      ensure_row_contiguous (bool): copy non-row-contiguous inputs first. Default True.
      atomic_outputs (bool): declare the outputs ``device atomic<T>*``. Default False.
      compile_options (dict, optional): ``{"math_mode": "safe" | "relaxed" | "fast"}``.

    Returns:
      MetalKernel: call it with keyword arguments (see :meth:`MetalKernel.__call__`).
    """
    name = _text("name", name)
    input_names = _names("input_names", input_names)
    output_names = _names("output_names", output_names)
    source = _text("source", source)
    header = _text("header", header)
    math_mode = _math_mode(compile_options)  # parsed before the factory runs, as in MLX
    return MetalKernel(_MetalKernel(name, input_names, output_names, source, header,
                                    bool(ensure_row_contiguous), bool(atomic_outputs), math_mode))


fast = _pytypes.SimpleNamespace(metal_kernel=metal_kernel)
fast.__doc__ = "mx.fast's namespace: `mslsim.fast.metal_kernel` is `mslsim.metal_kernel`."
