#!/usr/bin/python3
"""Tests of mslsim's MSL standard library additions, run through the mslsim CLI.

Usage: /usr/bin/python3 tests/stdlib/test_stdlib.py PATH_TO_MSLSIM   (exit status 1 on any failure)

Every expected value is computed here with numpy from the inputs (float64 arithmetic, then the
destination type's rounding), never by the library under test. Covered: simdgroup_matrix
(thread_elements() lane layout against the formula in shared/reference/msl-inventory.md §2.6,
load/store with strides, origins and transposes, float/half/bfloat and mixed-precision
multiply-accumulate, simdgroup_multiply, operator*, threadgroup-memory tiles), floatNxM/halfNxM
matrices (constructors, access, + - *, transpose, determinant, memory layout), pack/unpack
functions, numeric_limits, type traits, os_log and <simd/simd.h>.
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MSLSIM = None
TMP = tempfile.mkdtemp(prefix="mslsim-stdlib-")
failures = []
checks = 0


def check(name, ok, detail=""):
    global checks
    checks += 1
    if ok and os.environ.get("MSLSIM_STDLIB_VERBOSE"):
        print(f"PASS {name}")
    if not ok:
        failures.append(name)
        print(f"FAIL {name} {detail}")


def check_equal(name, got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    ok = got.shape == want.shape and np.array_equal(got, want)
    detail = ""
    if not ok:
        if got.shape != want.shape:
            detail = f"shape {got.shape} != {want.shape}"
        else:
            bad = np.argwhere(got != want)
            i = tuple(bad[0])
            detail = f"{len(bad)} mismatches, first at {i}: got {got[i]} want {want[i]}"
    check(name, ok, detail)


def check_close(name, got, want, tol):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    tol = np.broadcast_to(np.asarray(tol, np.float64), want.shape)
    ok = got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol))
    detail = ""
    if not ok and got.shape == want.shape:
        err = np.abs(got - want) - tol
        i = np.unravel_index(np.argmax(err), err.shape)
        detail = f"worst at {i}: got {got[i]} want {want[i]} tol {tol[i]}"
    check(name, ok, detail)


_counter = [0]


def run(metal, kernel, grid, tg, buffers, outputs, checks_arg=None):
    """buffers: {index: np.ndarray | spec string}; outputs: [index]. Returns {index: array}."""
    args = [MSLSIM, "run", os.path.join(HERE, metal), "--kernel", kernel, "--grid", str(grid),
            "--threadgroup", str(tg)]
    for i, b in buffers.items():
        if isinstance(b, np.ndarray):
            _counter[0] += 1
            path = os.path.join(TMP, f"in{_counter[0]}.npy")
            np.save(path, b)
            b = path
        args += ["--buffer", f"{i}={b}"]
    outs = {}
    for i in outputs:
        _counter[0] += 1
        outs[i] = os.path.join(TMP, f"out{_counter[0]}.npy")
        args += ["--output", f"{i}={outs[i]}"]
    args += ["-D", "ONLY", "-D", f"K_{kernel}"]
    if checks_arg:
        args += ["--check", checks_arg]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        check(f"{metal}:{kernel} runs", False, f"exit {r.returncode}: {r.stderr.strip()[:2000]}")
        return None
    return {i: np.load(p) for i, p in outs.items()}


# ---------------------------------------------------------------- number formats
def bf16_bits(x):
    """float -> bfloat16 bit patterns, round to nearest even (NaN not needed here)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


FMT = {"f32": np.float32, "f16": np.float16, "bf16": "bf16"}


def encode(x, fmt):
    return bf16_bits(x) if fmt == "bf16" else np.asarray(x).astype(FMT[fmt])


def decode(a, fmt):
    return bf16_value(a) if fmt == "bf16" else np.asarray(a).astype(np.float64)


def round_to(x, fmt):
    return decode(encode(np.asarray(x, np.float64).astype(np.float32), fmt), fmt)


# ---------------------------------------------------------------- simdgroup_matrix
def lane_coord(l):
    """The thread_elements() layout from the inventory: lane l holds (row, col) and (row, col+1)."""
    q = l // 4
    return (q & 4) + (l // 2) % 4, (q & 2) * 2 + (l % 2) * 2


def test_sg_layout():
    src = np.arange(64, dtype=np.float32) * 1.5 - 7
    r = run("simdgroup_matrix.metal", "sg_layout", 32, 32,
            {0: src, 1: "zeros:float32:64", 2: "zeros:float32:64", 3: np.full(64, -1, np.float32),
             4: "zeros:float16:64", 5: np.full(16 * 8 + 64, -1, np.float32)}, [1, 2, 3, 4, 5])
    if r is None:
        return
    elems, stored, diag, filled, mlx = r[1], r[2], r[3], r[4], r[5]
    want_elems = np.zeros(64, np.float32)
    want_stored = np.zeros(64, np.float32)
    want_mlx = np.full(16 * 8 + 64, -1, np.float32)
    for l in range(32):
        row, col = lane_coord(l)
        for j in range(2):
            want_elems[2 * l + j] = src[row * 8 + col + j]
            want_stored[row * 8 + col + j] = 2 * l + j
            want_mlx[row * 16 + 8 + col + j] = (100 + l) if j == 0 else (200 + l)
            want_mlx[16 * 8 + 2 * l + j] = (100 + l) if j == 0 else (200 + l)
    check_equal("sg thread_elements() after simdgroup_load matches the inventory layout", elems, want_elems)
    check_equal("sg simdgroup_store of thread_elements() matches the inventory layout", stored, want_stored)
    check_equal("sg diagonal constructor", diag, (np.eye(8) * 3).astype(np.float32).ravel())
    check_equal("sg make_filled_simdgroup_matrix<half,8>", filled, np.full(64, 2.5, np.float16))
    check_equal("sg reinterpret_cast<float2&>(thread_elements()) + store with stride/origin", mlx, want_mlx)


def mat_index(ld, ox, oy, tr):
    """Memory index of element (r, c) of the 8x8 matrix, as an 8x8 array."""
    r = np.arange(8)[:, None]
    c = np.arange(8)[None, :]
    return (oy + c) * ld + ox + r if tr else (oy + r) * ld + ox + c


def mma_case(name, kernel, fmts, cfg, groups, tg, mode, rng, data="exact", out_fill=-7.0):
    """fmts: formats of A, B, C, D. cfg: 4 tuples (ld, ox, oy, transpose)."""
    mats = []
    bufs = {}
    offsets = []
    for i in range(4):
        ld, ox, oy, tr = cfg[i]
        idx = mat_index(ld, ox, oy, tr)
        block = int(idx.max()) + 1 + 3  # a little slack between the groups' blocks
        offsets.append(block)
        n = block * groups
        if i < 3:
            if data == "exact":
                vals = rng.integers(-8, 9, n) * 0.5
            else:
                vals = rng.standard_normal(n)
            enc = encode(vals, fmts[i])
            bufs[i] = enc
            mats.append(decode(enc, fmts[i]))
        else:
            bufs[i] = encode(np.full(n, out_fill), fmts[i])
            mats.append(decode(bufs[i], fmts[i]))
    p = np.zeros(24, np.uint32)
    for i in range(4):
        p[4 * i:4 * i + 4] = [cfg[i][0], cfg[i][1], cfg[i][2], int(cfg[i][3])]
        p[16 + i] = offsets[i]
    p[20] = mode
    bufs[4] = p
    r = run("simdgroup_matrix.metal", kernel, groups * 32 if tg >= 32 else groups * 32, tg, bufs, [3])
    if r is None:
        return
    got = decode(r[3], fmts[3])
    want = mats[3].copy()
    tol = np.zeros_like(want)
    for g in range(groups):
        m = []
        for i in range(3):
            base = g * offsets[i]
            m.append(mats[i][base + mat_index(*cfg[i])])
        prod = m[0] @ m[1] + (m[2] if mode == 0 else 0)
        mag = np.abs(m[0]) @ np.abs(m[1]) + (np.abs(m[2]) if mode == 0 else 0)
        didx = g * offsets[3] + mat_index(*cfg[3])
        want[didx] = round_to(prod, fmts[3])
        # exact data: no tolerance at all; random data: float accumulation error + one rounding
        if data != "exact":
            ulp = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}[fmts[3]]
            tol[didx] = mag * 2.0 ** -21 + np.abs(prod) * ulp
    if data == "exact":
        check_equal(f"sg {name}", got, want)
    else:
        check_close(f"sg {name}", got, want, tol)


def test_sg_mma():
    rng = np.random.default_rng(1234)
    plain = [(8, 0, 0, False)] * 4
    # A from a wide row-major buffer at an origin; B transposed with another stride; C at an
    # origin; D stored transposed with a stride and an origin.
    fancy = [(20, 5, 3, False), (11, 2, 1, True), (9, 1, 0, False), (13, 3, 2, True)]
    fancy2 = [(10, 2, 0, True), (8, 0, 0, False), (12, 4, 1, True), (16, 8, 0, False)]
    types = [("f32", "mma_f32", ("f32",) * 4), ("f16", "mma_f16", ("f16",) * 4),
             ("bf16", "mma_bf16", ("bf16",) * 4),
             ("f16xf16+f32", "mma_f16_f32acc", ("f16", "f16", "f32", "f32")),
             ("f16xf32+f32", "mma_f16_f32_mixed", ("f16", "f32", "f32", "f32")),
             ("f16xf16+f32->f16", "mma_f32acc_to_f16", ("f16", "f16", "f32", "f16")),
             ("bf16xbf16+f32", "mma_bf16_f32acc", ("bf16", "bf16", "f32", "f32"))]
    for tname, kernel, fmts in types:
        mma_case(f"{tname} multiply_accumulate plain", kernel, fmts, plain, 1, 32, 0, rng)
        mma_case(f"{tname} multiply_accumulate strides/origins/transposes, 4 SIMD-groups in 2 threadgroups",
                 kernel, fmts, fancy, 4, 64, 0, rng)
    for tname, kernel, fmts in types[:4]:
        mma_case(f"{tname} multiply (no accumulator) transposed A", kernel, fmts, fancy2, 2, 64, 1, rng)
        mma_case(f"{tname} multiply_accumulate random data", kernel, fmts, fancy, 2, 32, 0, rng, data="random")
    mma_case("f32 operator*", "mulop_f32", ("f32",) * 4, fancy, 2, 64, 2, rng)
    mma_case("f16 operator*", "mulop_f16", ("f16",) * 4, fancy2, 1, 32, 2, rng)

    # Rounding once: 1024 + 8 * 0.5 in half. Rounding after every addition would give 1024
    # (1024.5 ties to even), a float accumulator rounded once gives 1028.
    p = np.zeros(24, np.uint32)
    for i in range(4):
        p[4 * i] = 8
        p[16 + i] = 64
    a = np.full(64, 0.5, np.float16)
    b = np.eye(8, dtype=np.float16).ravel() + 0  # A*B = 0.5 everywhere ... summed over k below
    b = np.ones(64, np.float16)
    c = np.full(64, 1024, np.float16)
    r = run("simdgroup_matrix.metal", "mma_f16", 32, 32, {0: a, 1: b, 2: c, 3: "zeros:float16:64", 4: p}, [3])
    if r is not None:
        check_equal("sg f16 multiply_accumulate rounds once (1024 + 8*0.5 = 1028)", r[3], np.full(64, 1028, np.float16))

    # ggml-style tiles in threadgroup memory: two SIMD-groups, half inputs, float accumulators.
    A = (rng.integers(-8, 9, 128) * 0.25).astype(np.float16)
    B = (rng.integers(-8, 9, 64) * 0.25).astype(np.float16)
    r = run("simdgroup_matrix.metal", "mma_threadgroup", 64, 64, {0: A, 1: B, 2: "zeros:float32:128"}, [2],
            checks_arg="all")
    if r is not None:
        want = np.concatenate([(A[:64].reshape(8, 8).astype(np.float64) @ B.reshape(8, 8) + 1).ravel(),
                               (A[64:].reshape(8, 8).astype(np.float64) @ B.reshape(8, 8) + 1).ravel()])
        check_equal("sg threadgroup tiles (half x half + float), --check all clean", r[2], want.astype(np.float32))


# ---------------------------------------------------------------- floatNxM / halfNxM
class Stream:
    """Generates the kernel's input values in the order the kernel reads them."""

    def __init__(self, rng):
        self.rng = rng
        self.vals = []

    def mat(self, cols, rows, ints=False):
        v = self.rng.integers(-4, 5, cols * rows) * 1.0 if ints else self.rng.integers(-32, 33, cols * rows) / 8.0
        self.vals += list(v)
        return v.reshape(cols, rows).T  # numpy (rows x cols); the stream is column by column

    def vec(self, n):
        v = self.rng.integers(-32, 33, n) / 8.0
        self.vals += list(v)
        return v


def flat(m):
    m = np.asarray(m, np.float64)
    return list(m.T.ravel()) if m.ndim == 2 else list(np.ravel(m))


def expected_matrix_ops(fmt, rng):
    s = Stream(rng)
    out = []
    rnd = lambda x: round_to(x, fmt)  # one rounding to the element type
    for C in (2, 3, 4):
        for R in (2, 3, 4):
            a, b = s.mat(C, R), s.mat(C, R)
            v, w = s.vec(C), s.vec(R)
            out += flat(rnd(a + b)) + flat(rnd(a - b)) + flat(-a) + flat(rnd(a * 2.5)) + flat(rnd(0.5 * a))
            out += flat(a.T) + flat(rnd(a @ v)) + flat(rnd(w @ a)) + flat(np.eye(R, C) * 3)
            x = rnd(a + b)
            out += flat(x)
            x = rnd(rnd(x - b) - b)
            out += flat(x)
            out += flat(rnd(x * 2))
    for K, R, C in ((2, 3, 4), (3, 3, 3), (4, 4, 4), (4, 2, 3), (2, 2, 2), (3, 4, 2)):
        a, b = s.mat(K, R), s.mat(C, K)
        out += flat(rnd(a @ b))
    for n in (2, 3, 4, 4):
        out.append(float(rnd(np.round(np.linalg.det(s.mat(n, n, ints=True))))))
    c0, c1 = s.vec(3), s.vec(3)
    out += list(c0) + list(c1)
    out += [1, 2, 3, 4, 3, 4, 3, 1, 9, 7, 8]
    return np.array(s.vals, np.float32), np.array(out, np.float32)


def test_matrix():
    rng = np.random.default_rng(99)
    for fmt, kernel in (("f32", "matrix_ops_f32"), ("f16", "matrix_ops_f16")):
        inp, want = expected_matrix_ops(fmt, rng)
        r = run("matrix.metal", kernel, 1, 1, {0: inp, 1: np.full(len(want) + 4, -1234, np.float32)}, [1])
        if r is None:
            continue
        got = r[1]
        check_equal(f"matrix {fmt} ops (+ - * transpose determinant constructors access)", got[:len(want)], want)
    m44 = rng.integers(-99, 99, 32).astype(np.float32)
    m33 = rng.integers(-99, 99, 24).astype(np.float32)
    h44 = (rng.integers(-99, 99, 32) / 4).astype(np.float16)
    h23 = (rng.integers(-99, 99, 16) / 4).astype(np.float16)
    r = run("matrix.metal", "matrix_layout", 1, 1,
            {0: m44, 1: m33, 2: h44, 3: h23, 4: "zeros:float32:80", 5: "zeros:float16:32"}, [4, 5])
    if r is None:
        return
    want = []
    want += [m44[16 + c * 4 + r] for c in range(4) for r in range(4)]
    want += [m33[12 + c * 4 + r] for c in range(3) for r in range(3)]
    want += [float(h44[16 + c * 4 + r]) for c in range(4) for r in range(4)]
    want += [float(h23[8 + c * 4 + r]) for c in range(2) for r in range(3)]
    want += [64, 16, 48, 16, 32, 8, 8, 4, 32, 12]
    want += [0] * (80 - len(want))
    check_equal("matrix memory layout (column-major, padded 3-row columns), (float4x4)(half4x4), sizes",
                r[4], np.array(want, np.float32))
    check_equal("matrix half4x4(float4x4) conversion and diagonal constructor", r[5],
                np.concatenate([m44[:16].astype(np.float16), (np.eye(4) * 2).ravel().astype(np.float16)]))


# ---------------------------------------------------------------- pack / unpack
def unorm(c, n):
    return np.float32(c) / np.float32(2 ** n - 1)


def snorm(c, n):
    s = np.where(c >= 2 ** (n - 1), c.astype(np.int64) - 2 ** n, c)
    return np.maximum(np.float32(-1), np.float32(s) / np.float32(2 ** (n - 1) - 1))


def srgb_to_linear(c):
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c):
    c = np.clip(np.asarray(c, np.float64), 0, 1)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def to_unorm(f, n):
    f = np.clip(np.asarray(f, np.float32), 0, 1)
    return np.rint(f * np.float32(2 ** n - 1)).astype(np.uint32)


def to_snorm(f, n):
    f = np.clip(np.asarray(f, np.float32), -1, 1)
    return (np.rint(f * np.float32(2 ** (n - 1) - 1)).astype(np.int64) & (2 ** n - 1)).astype(np.uint32)


def test_pack():
    rng = np.random.default_rng(7)
    words = np.concatenate([rng.integers(0, 2 ** 32, 200, dtype=np.uint64).astype(np.uint32),
                            np.array([0, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x81818181, 0x80008000,
                                      0x40100401, 0x3FFFFFFF, 0xC0000000, 0x0000F81F], np.uint32)])
    n = len(words)
    r = run("misc.metal", "unpack", n, 32, {0: words, 1: f"zeros:float32:{34 * n}"}, [1])
    if r is not None:
        got = r[1].reshape(n, 34)
        b = [(words >> (8 * i)) & 255 for i in range(4)]
        s16 = [words & 0xFFFF, words >> 16]
        t10 = [(words >> 10 * i) & 1023 for i in range(3)] + [words >> 30]
        lo = words & 0xFFFF
        w = np.zeros((n, 34), np.float32)
        for i in range(4):
            w[:, i] = unorm(b[i], 8)
            w[:, 4 + i] = snorm(b[i], 8)
            w[:, 16 + i] = unorm(t10[i], 10 if i < 3 else 2)
            w[:, 20 + i] = snorm(t10[i], 10 if i < 3 else 2)
            w[:, 27 + i] = unorm(b[i], 8).astype(np.float16)
        for i in range(2):
            w[:, 12 + i] = unorm(s16[i], 16)
            w[:, 14 + i] = snorm(s16[i], 16)
            w[:, 31 + i] = snorm(s16[i], 16).astype(np.float16)
        w[:, 24], w[:, 25], w[:, 26] = unorm(lo & 31, 5), unorm((lo >> 5) & 63, 6), unorm(lo >> 11, 5)
        w[:, 11] = unorm(b[3], 8)
        srgb_cols = [8, 9, 10]
        exact_cols = [c for c in range(34) if c not in srgb_cols]
        check_equal("unpack unorm/snorm 4x8, 2x16, 10a2, 565 and half variants", got[:, exact_cols], w[:, exact_cols])
        want_srgb = np.stack([srgb_to_linear(unorm(b[i], 8)) for i in range(3)] + [unorm(b[3], 8)], axis=1)
        check_close("unpack_unorm4x8_srgb_to_float", got[:, 8:12], want_srgb, 2e-6 * np.abs(want_srgb) + 1e-7)

    specials = [0, 1, -1, 0.5, -0.5, 2, -2, 0.5 / 255, 1.5 / 255, 0.5 / 127, -0.5 / 127, 0.0031308, 0.04, 1 / 3]
    v = np.concatenate([rng.uniform(-1.5, 1.5, 4 * 150), np.repeat(specials, 4)]).astype(np.float32)
    m = len(v) // 4
    r = run("misc.metal", "pack", m, 32, {0: v, 1: f"zeros:uint32:{11 * m}"}, [1])
    if r is not None:
        got = r[1].reshape(m, 11)
        x = v.reshape(m, 4)
        h = x.astype(np.float16).astype(np.float32)
        w = np.zeros((m, 11), np.uint32)
        w[:, 0] = sum(to_unorm(x[:, i], 8) << (8 * i) for i in range(4))
        w[:, 1] = sum(to_snorm(x[:, i], 8) << (8 * i) for i in range(4))
        w[:, 3] = to_unorm(x[:, 0], 16) | to_unorm(x[:, 1], 16) << 16
        w[:, 4] = to_snorm(x[:, 2], 16) | to_snorm(x[:, 3], 16) << 16
        w[:, 5] = to_unorm(x[:, 0], 10) | to_unorm(x[:, 1], 10) << 10 | to_unorm(x[:, 2], 10) << 20 | to_unorm(x[:, 3], 2) << 30
        w[:, 6] = to_snorm(x[:, 0], 10) | to_snorm(x[:, 1], 10) << 10 | to_snorm(x[:, 2], 10) << 20 | to_snorm(x[:, 3], 2) << 30
        w[:, 7] = to_unorm(x[:, 0], 5) | to_unorm(x[:, 1], 6) << 5 | to_unorm(x[:, 2], 5) << 11
        w[:, 8] = sum(to_unorm(h[:, i], 8) << (8 * i) for i in range(4))
        w[:, 9] = to_snorm(h[:, 0], 16) | to_snorm(h[:, 1], 16) << 16
        w[:, 10] = to_unorm(h[:, 0], 5) | to_unorm(h[:, 1], 6) << 5 | to_unorm(h[:, 2], 5) << 11
        cols = [0, 1, 3, 4, 5, 6, 7, 8, 9, 10]
        check_equal("pack float/half to unorm/snorm 4x8, 2x16, 10a2, 565", got[:, cols], w[:, cols])
        # sRGB: the float64 reference may round the other way at a byte boundary: allow 1 step.
        ref = [np.rint(np.clip(linear_to_srgb(x[:, i]), 0, 1) * 255) for i in range(3)]
        ref.append(to_unorm(x[:, 3], 8).astype(np.float64))
        gotb = np.stack([(got[:, 2] >> (8 * i)) & 255 for i in range(4)], axis=1).astype(np.float64)
        check_close("pack_float_to_srgb_unorm4x8 (within 1 step of a float64 reference)", gotb,
                    np.stack(ref, axis=1), 1.0)
        check("pack_float_to_srgb_unorm4x8 mostly exact",
              np.mean(gotb == np.stack(ref, axis=1)) > 0.99)


# ---------------------------------------------------------------- numeric_limits, traits, os_log, simd.h
def fp_limits(e, m):
    """numeric_limits<T> of an IEEE-style format with e exponent bits and m stored mantissa bits."""
    bias = 2 ** (e - 1) - 1
    mn, mx = 2.0 ** (1 - bias), (2 - 2.0 ** -m) * 2.0 ** bias
    digits10 = int(np.floor(m * np.log10(2)))
    max_digits10 = int(np.ceil(1 + (m + 1) * np.log10(2)))
    return [mn, mx, -mx, 2.0 ** -m, m + 1, digits10, max_digits10, 2 - bias, bias + 1,
            int(np.ceil(np.log10(mn))), int(np.floor(np.log10(mx))), mn * 2.0 ** -m, np.inf, 1, 1, 0.5,
            1 + 8 + 16 + 32 + 64 + 256]


def int_limits(bits, signed):
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2 ** bits - 1)
    digits = bits - 1 if signed else bits
    return [lo, hi, lo, digits, int(np.floor(digits * np.log10(2))), (1 if signed else 0) + 2 + 4 + 64 + (0 if signed else 128)]


def test_misc():
    r = run("misc.metal", "limits", 1, 1, {0: "zeros:float32:128"}, [0])
    if r is None:
        return
    o = r[0]
    want = fp_limits(8, 23) + fp_limits(5, 10) + fp_limits(8, 7)
    check_equal("numeric_limits float/half/bfloat (all members)", o[:51], np.array(want, np.float32))
    want = []
    for bits, signed in ((8, True), (8, False), (16, True), (16, False), (32, True), (32, False), (64, True), (64, False)):
        want += int_limits(bits, signed)
    check_equal("numeric_limits char..ulong", o[51:99], np.array(want, np.float32))
    check_equal("numeric_limits<const volatile int>", o[99], np.float32(2 ** 31 - 1))
    check_equal("type traits (22 groups)", o[100:102], np.array([2 ** 22 - 1, 22], np.float32))
    check_equal("os_log accepted, __MSLSIM_HAVE_OS_LOG", o[102], np.float32(1))
    check_equal("<simd/simd.h> simd_float4 / simd::float4x4", o[103], np.float32(8))


def main():
    global MSLSIM
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    MSLSIM = os.path.abspath(sys.argv[1])
    t0 = time.time()
    test_sg_layout()
    test_sg_mma()
    test_matrix()
    test_pack()
    test_misc()
    print(f"{checks - len(failures)}/{checks} checks passed in {time.time() - t0:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
