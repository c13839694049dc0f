#!/usr/bin/python3
"""Conformance of as_type<D>(S): every ordered pair of distinct same-size scalar and vector types
(msl-inventory.md §3.7, MSL4 §2.20.2: "reinterprets the bits of the operand"; 3-component vectors
are left out, as their size includes padding whose bits are undefined).

Usage: /usr/bin/python3 tests/conformance/as_type.py PATH_TO_MSLSIM [--verbose]
Exit status 1 on any failure.

Each pair is one kernel: thread i builds a value of type S from the scalar input buffer, converts it
with as_type<D> and writes D's components to the scalar output buffer. The input is random bytes
(NaN payloads, denormals and infinities included for the floating-point types) and the reference is
numpy's reinterpretation of the same bytes (`ndarray.view`): results must be bit-identical.
"""
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np

# type -> (scalar, components); scalar -> (MSL name, numpy dtype of its bits, CLI dtype)
SCALARS = {
    "char": (np.int8, "int8"), "uchar": (np.uint8, "uint8"),
    "short": (np.int16, "int16"), "ushort": (np.uint16, "uint16"),
    "half": (np.float16, "float16"), "bfloat": (np.uint16, "bfloat16"),  # bfloat files hold <u2 bits
    "int": (np.int32, "int32"), "uint": (np.uint32, "uint32"), "float": (np.float32, "float32"),
    "long": (np.int64, "int64"), "ulong": (np.uint64, "uint64"),
}
TYPES = {}
for scalar in SCALARS:
    TYPES[scalar] = (scalar, 1)
    for n in (2, 4):
        TYPES[f"{scalar}{n}"] = (scalar, n)


def size_of(t):
    scalar, n = TYPES[t]
    return np.dtype(SCALARS[scalar][0]).itemsize * n


COUNT = 4096  # values per pair


def kernel_source(src, dst, name):
    s_scalar, s_n = TYPES[src]
    d_scalar, d_n = TYPES[dst]
    if s_n == 1:
        build = f"{src} v = in[i];"
    else:
        build = f"{src} v = {src}(" + ", ".join(f"in[{s_n} * i + {k}]" for k in range(s_n)) + ");"
    if d_n == 1:
        store = "out[i] = r;"
    else:
        store = " ".join(f"out[{d_n} * i + {k}] = r[{k}];" for k in range(d_n))
    return (f"kernel void {name}(device const {s_scalar}* in [[buffer(0)]], device {d_scalar}* out [[buffer(1)]],\n"
            f"                   uint i [[thread_position_in_grid]]) {{\n"
            f"  {build}\n  {dst} r = as_type<{dst}>(v);\n  {store}\n}}\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mslsim = sys.argv[1]
    verbose = "--verbose" in sys.argv
    pairs = [(a, b) for a, b in itertools.permutations(TYPES, 2) if size_of(a) == size_of(b)]
    rng = np.random.default_rng(20261122)
    failures, values = [], 0
    with tempfile.TemporaryDirectory(prefix="mslsim-as-type-") as tmp:
        env = dict(os.environ, MSLSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        source = os.path.join(tmp, "as_type.metal")
        names = {pair: f"k_{pair[0]}_to_{pair[1]}" for pair in pairs}
        with open(source, "w") as f:
            f.write("#include <metal_stdlib>\nusing namespace metal;\n\n")
            for pair in pairs:
                f.write(kernel_source(*pair, names[pair]))
        # One compilation of every kernel into the cache; each run below loads its kernel from it
        # instead of parsing the file again.
        warm = subprocess.run([mslsim, "compile", source, "--kernel", "*", "--check", "none"], capture_output=True, text=True,
                              env=env, timeout=600)
        if warm.returncode != 0:
            sys.exit(f"as_type: the kernels do not compile:\n{warm.stderr[:4000]}")
        for src, dst in pairs:
            s_scalar, s_n = TYPES[src]
            d_scalar, d_n = TYPES[dst]
            s_dtype = SCALARS[s_scalar][0]
            raw = rng.integers(0, 256, size=COUNT * size_of(src), dtype=np.uint8)
            inputs = raw.view(s_dtype)
            in_path, out_path = os.path.join(tmp, "in.npy"), os.path.join(tmp, "out.npy")
            np.save(in_path, inputs)
            p = subprocess.run([mslsim, "run", source, "--kernel", names[(src, dst)], "--grid", str(COUNT),
                                "--threadgroup", "64", "--check", "none", "--buffer", "0=" + in_path,
                                "--buffer", f"1=zeros:{SCALARS[d_scalar][1]}:{COUNT * d_n}",
                                "--output", "1=" + out_path], capture_output=True, text=True, env=env, timeout=120)
            if p.returncode != 0:
                failures.append(f"as_type<{dst}>({src}): mslsim failed: {p.stderr.strip()[:400]}")
                continue
            got = np.load(out_path).view(np.uint8)
            want = raw  # the same bytes, read as D
            values += COUNT
            if got.shape != want.shape or not np.array_equal(got, want):
                bad = np.flatnonzero(got != want) if got.shape == want.shape else [0]
                element = bad[0] // size_of(dst)
                failures.append(f"as_type<{dst}>({src}): {len(bad)} bytes differ, first in value {element}: "
                                f"input bytes {raw[element * size_of(src):(element + 1) * size_of(src)].tolist()}, "
                                f"got {got[element * size_of(dst):(element + 1) * size_of(dst)].tolist()}")
            elif verbose:
                print(f"PASS as_type<{dst}>({src})")
    for f in failures:
        print("FAIL " + f)
    print(f"as_type: {len(pairs)} type pairs, {values} values, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
