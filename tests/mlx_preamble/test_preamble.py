#!/usr/bin/env python3
"""Tests of mslsim's MLX preamble (frontend/include/metal/__mslsim/mlx_preamble.h).

Usage: test_preamble.py PATH/TO/mslsim [--timing]

Runs the MLX-style kernels in this directory through the CLI and compares every output with a
numpy reference. Outputs are pre-filled with sentinels so that unwritten results fail, and every
check also verifies that it would reject a perturbed reference (so no check is vacuous).
Exit status 0 when every check passes.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MSLSIM = None
TMP = None
failures = []
passes = 0


# ------------------------------------------------------------------ running kernels
def run(metal, kernel, grid, threadgroup, buffers, outputs, expect_ok=True):
    """buffers: {index: ndarray | spec string}; outputs: [index]. Returns {index: ndarray}."""
    args = [MSLSIM, "run", os.path.join(HERE, metal), "--kernel", kernel,
            "--grid", ",".join(map(str, grid)), "--threadgroup", ",".join(map(str, threadgroup))]
    for idx, b in buffers.items():
        if isinstance(b, np.ndarray):
            path = os.path.join(TMP, f"{kernel}_in{idx}.npy")
            np.save(path, b)
            b = path
        args += ["--buffer", f"{idx}={b}"]
    paths = {}
    for idx in outputs:
        paths[idx] = os.path.join(TMP, f"{kernel}_out{idx}.npy")
        args += ["--output", f"{idx}={paths[idx]}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        if expect_ok:
            fail(f"{metal}:{kernel}", f"mslsim exited {p.returncode}:\n{p.stdout}{p.stderr}")
        return None
    return {idx: np.load(path) for idx, path in paths.items()}


def compile_ok(metal):
    p = subprocess.run([MSLSIM, "compile", os.path.join(HERE, metal)], capture_output=True, text=True)
    return p.returncode == 0, p.stdout + p.stderr


# ------------------------------------------------------------------ checks
def fail(name, msg):
    failures.append(name)
    print(f"FAIL {name}: {msg}")


def _report(name, got, want, same, perturb):
    global passes
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return fail(name, f"shape {got.shape} != {want.shape}")
    if not same(got, want):
        bad = np.argwhere(~_elementwise(same, got, want))[:5]
        detail = "; ".join(f"[{tuple(int(x) for x in i)}] got {got[tuple(i)]!r} want {want[tuple(i)]!r}" for i in bad)
        return fail(name, detail or "mismatch")
    # Negative control: the comparison must reject a wrong reference.
    if same(got, perturb(want)):
        return fail(name, "check cannot fail (accepts a perturbed reference)")
    passes += 1
    print(f"ok   {name}")


def _elementwise(same, got, want):
    flat_g, flat_w = got.reshape(-1), want.reshape(-1)
    return np.array([same(flat_g[i:i + 1], flat_w[i:i + 1]) for i in range(flat_g.size)]).reshape(got.shape)


def _perturb_int(w):
    w = np.array(w, copy=True)
    w.reshape(-1)[w.size // 2] ^= 1 if w.dtype != np.bool_ else True
    return w


def check_equal(name, got, want):
    """Exact equality (bit equality for floats, so NaN == NaN and -0 != +0)."""
    want = np.asarray(want)
    got = np.asarray(got)
    if want.dtype.kind == "f":
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
        same = lambda g, w: g.dtype == w.dtype and np.array_equal(g.view(bits), w.view(bits))
        _report(name, got, want, same, lambda w: _perturb_int(w.view(bits)).view(w.dtype))
    else:
        same = lambda g, w: np.array_equal(g.astype(np.int64), w.astype(np.int64))
        _report(name, got, want, same, _perturb_int)


def check_close(name, got, want, rtol, atol=0.0):
    want = np.asarray(want, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    same = lambda g, w: np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)

    def perturb(w):
        w = w.copy()
        k = w.size // 2
        w.reshape(-1)[k] += 10 * (abs(w.reshape(-1)[k]) * rtol + atol) + 1e-3
        return w
    _report(name, got, want, same, perturb)


def check_bf16(name, got_bits, want_f32, ulps=0):
    """got_bits: <u2 bfloat16 bits; want_f32: float32 values to be rounded once to bfloat16."""
    want = f32_to_bf16(want_f32)
    got = np.asarray(got_bits, dtype=np.uint16)

    def ordered(b):  # bfloat16 bits -> integers ordered like the values
        b = b.astype(np.int32)
        return np.where(b & 0x8000, -(b & 0x7FFF), b)
    same = lambda g, w: bool(np.all(np.abs(ordered(g) - ordered(w)) <= ulps))

    def perturb(w):
        w = w.copy()
        w.reshape(-1)[w.size // 2] ^= np.uint16(1 << 4)  # 16 ulps away
        return w
    _report(name, got, want, same, perturb)


# ------------------------------------------------------------------ bfloat16 helpers
def f32_to_bf16(a):
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    r = np.where(nan, (u >> 16) | 0x40, r)
    return r.astype(np.uint16)


def bf16_to_f32(b):
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf(a):  # round float32 values to bfloat16 and back
    return bf16_to_f32(f32_to_bf16(a))


f32 = np.float32


# ------------------------------------------------------------------ tests
def test_strided():
    rng = np.random.default_rng(1)
    # The docs' example: a (4,16) float16 array viewed as a[::2] (shape (2,16), strides (32,1)).
    base = rng.uniform(-2, 2, size=(4, 16)).astype(np.float16)
    out = run("strided.metal", "custom_kernel_myexp_strided__float_float16_t_float16_t", (32,), (32,),
              {0: base, 1: np.array([2, 16], np.int32), 2: np.array([32, 1], np.int64),
               3: "scalar:int32:2", 4: "fill:float16:32:-7"}, [4])
    if out:
        want = np.exp(base[::2].astype(np.float32)).astype(np.float16).reshape(-1)
        check_close("strided: elem_to_loc(uint, ...) on a[::2] then exp (float16)", out[4], want, rtol=1e-3)

    shape = np.array([2, 3, 4, 5], np.int32)
    xs = np.array([7, -20, 300, 2], np.int64)
    ys = np.array([60, 20, 5, 1], np.int64)
    zs = np.array([0, 5, -1, 100], np.int64)
    n = int(np.prod(shape))
    idx = np.stack(np.unravel_index(np.arange(n), shape), axis=1)  # row-major multi-indices
    lx, ly, lz = idx @ xs, idx @ ys, idx @ zs
    dummy = np.zeros(n, np.float32)
    out = run("strided.metal", "custom_kernel_locs_float_float_float_int64_t", (5, 4, 6), (5, 4, 2),
              {0: dummy, 1: shape, 2: xs, 3: "scalar:int32:4", 4: dummy, 5: ys, 6: dummy, 7: zs,
               8: f"fill:int64:{n * 12}:-999"}, [8])
    if out:
        o = out[8].reshape(n, 12)
        check_equal("strided: elem_to_loc(int64 elem) with negative strides", o[:, 0], lx)
        check_equal("strided: elem_to_loc(uint3 elem)", o[:, 1], lx)
        check_equal("strided: elem_to_loc_2_nd", o[:, 2:4], np.stack([lx, ly], 1))
        check_equal("strided: elem_to_loc_3_nd", o[:, 4:7], np.stack([lx, ly, lz], 1))
        check_equal("strided: elem_to_loc_1", o[:, 7], idx[:, 3] * xs[3])
        check_equal("strided: elem_to_loc_2", o[:, 8], idx[:, 3] * xs[3] + idx[:, 2] * xs[2])
        check_equal("strided: elem_to_loc_3", o[:, 9], idx[:, 1:] @ xs[1:])
        check_equal("strided: elem_to_loc<int>", o[:, 10], lx)
        check_equal("strided: elem_to_loc<int64_t>(uint3) == scalar form", o[:, 11], np.ones(n, np.int64))

    out = run("strided.metal", "custom_kernel_looped_float_int64_t", (32,), (32,),
              {0: dummy, 1: shape, 2: xs, 3: "scalar:int32:4", 4: f"fill:int64:{4 * n}:-999"}, [4])
    if out:
        w = out[4].reshape(4, n)
        step = np.full(n, -1, np.int64)
        step[::7] = lx[::7]
        check_equal("looped: LoopedElemToLoc<2, int64_t, true>.next()", w[0], lx)
        check_equal("looped: LoopedElemToLoc<4, int64_t, false>.next()", w[1], lx)
        check_equal("looped: LoopedElemToLoc<2, int64_t, true>.next(7, ...)", w[2], step)
        step_d = np.full(n, -999, np.int64)
        step_d[::7] = lx[::7]
        check_equal("looped: LoopedElemToLoc<3, size_t, true>.next(7, ...)", w[3], step_d)


def cmul(ar, ai, br, bi):
    return ar * br - ai * bi, ar * bi + ai * br


def cdiv(ar, ai, br, bi):
    d = br * br + bi * bi
    return (ar * br + ai * bi) / d, (ai * br - ar * bi) / d


def floor_rem(a, b):
    r = a - b * (a / b).astype(np.int64).astype(np.float32)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r).astype(np.float32)


def log1p_f32(x):  # MLX's float log1p formula, in float32
    xp1 = f32(1) + x
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x * (np.log(xp1) / (xp1 - f32(1)))
    return np.where(xp1 == np.inf, np.inf, np.where(xp1 == 1, x, r)).astype(np.float32)


def test_complex():
    rng = np.random.default_rng(2)
    n = 64
    ar, ai, br, bi = (rng.uniform(-4, 4, n).astype(np.float32) for _ in range(4))
    ar[5], ai[5] = 0, 0                   # cast_to<bool> false
    ar[6], ai[6] = 0, 2                   # only the imaginary part non-zero
    br[7], bi[7] = ar[7], ai[7]           # equal
    br[8], bi[8] = ar[8], ai[8] + 1       # same real part: ordering decided by imag
    br[9], bi[9] = ar[9], ai[9] - 1
    ar[10], ai[10] = 1e-7, -2e-7          # log1p near 0
    a = (ar + 1j * ai).astype(np.complex64)
    b = (br + 1j * bi).astype(np.complex64)
    out = run("complex.metal", "custom_kernel_cplx_complex64_t_complex64_t_float", (n,), (n,),
              {0: a, 1: b, 2: f"fill:float32:{n * 48}:-12345"}, [2])
    if out:
        o = out[2].reshape(n, 48)
        pair = lambda re, im: np.stack([np.asarray(re, np.float32), np.asarray(im, np.float32)], 1)
        check_equal("complex: +", o[:, 0:2], pair(ar + br, ai + bi))
        check_equal("complex: -", o[:, 2:4], pair(ar - br, ai - bi))
        check_equal("complex: *", o[:, 4:6], pair(*cmul(ar, ai, br, bi)))
        check_equal("complex: /", o[:, 6:8], pair(*cdiv(ar, ai, br, bi)))
        check_equal("complex: % (floored, per component)", o[:, 8:10], pair(floor_rem(ar, br), floor_rem(ai, bi)))
        check_equal("complex: unary -", o[:, 10:12], pair(-ar, -ai))
        check_equal("complex: complex + scalar", o[:, 12:14], pair(ar + f32(2), ai))
        check_equal("complex: scalar - complex", o[:, 14:16], pair(f32(3) - ar, -ai))
        s = f32(1)
        d = br * br + bi * bi
        check_equal("complex: scalar / complex", o[:, 16:18], pair((s * br) / d, (-s * bi) / d))
        check_equal("complex: complex * scalar (extra)", o[:, 18:20], pair(ar * f32(2), ai * f32(2)))
        check_equal("complex: scalar * complex (extra)", o[:, 20:22], pair(ar * f32(0.5), ai * f32(0.5)))
        check_equal("complex: complex / scalar (extra)", o[:, 22:24], pair(ar / f32(4), ai / f32(4)))
        cr, ci = ar + br + f32(1), ai + bi - f32(1)
        cr, ci = cmul(cr, ci, br, bi)
        with np.errstate(all="ignore"):  # element 5 divides by 0 + 0i: NaN, as in the kernel
            cr, ci = cdiv(cr, ci, ar, ai)
        check_equal("complex: += -= *= /=", o[:, 24:26], pair(cr, ci))
        gt = (ar > br) | ((ar == br) & (ai > bi))
        ge = (ar > br) | ((ar == br) & (ai >= bi))
        lt = (br > ar) | ((br == ar) & (bi > ai))
        le = (br > ar) | ((br == ar) & (bi >= ai))
        eq = (ar == br) & (ai == bi)
        cmp = np.stack([lt, le, gt, ge, eq, ~eq], 1).astype(np.float32)
        check_equal("complex: < <= > >= == != (lexicographic)", o[:, 26:32], cmp)
        check_equal("complex: implicit conversion to float (real part)", o[:, 32], ar)
        check_equal("complex: conversion to float2", o[:, 33:35], pair(br, bi))
        check_equal("complex: construction from float2", o[:, 35:37], pair(bi, br))
        check_equal("complex: construction from int", o[:, 37:39], pair(np.arange(n), np.zeros(n)))
        # log1p(complex64): MLX's formula; transcendental, so compared with a tolerance.
        x, y = ar.astype(np.float64), ai.astype(np.float64)
        want = np.log1p(x + 1j * y)
        check_close("complex: log1p(complex64_t)", o[:, 39:41], pair(want.real, want.imag), rtol=2e-6, atol=1e-7)
        check_equal("complex: cast_to<bool>(complex64_t)", o[:, 41], ((ar != 0) | (ai != 0)).astype(np.float32))
        check_equal("complex: cast_to<int>(complex64_t) = int(real)", o[:, 42], np.trunc(ar).astype(np.int32).astype(np.float32))
        hr, hi = ar.astype(np.float16), ai.astype(np.float16)
        check_equal("complex32_t: conversion from complex64_t and * in half", o[:, 43:45],
                    pair(*(v.astype(np.float32) for v in cmul(hr, hi, hr, hi))))
        check_equal("complex: is_complex_v", o[:, 45], np.full(n, 5, np.float32))
        lane = np.arange(n) % 32
        down = np.where(lane + 1 < 32, np.roll(ar, -1), ar)
        check_equal("complex: simd_shuffle_down(complex64_t)", o[:, 46], down)
        check_equal("complex: simd_shuffle(complex64_t, 3)", o[:, 47], np.repeat(bi[[3, 35]], 32))

    out = run("complex.metal", "custom_kernel_cplx_limits_float", (1,), (1,), {0: "fill:float32:8:-1"}, [0])
    if out:
        check_equal("complex: Limits<complex64_t>, sizes, constexpr *", out[0],
                    np.array([np.inf, np.inf, -np.inf, -np.inf, 8, 4, -5, -1], np.float32))


def test_bf16():
    rng = np.random.default_rng(3)
    n = 64
    v = np.empty(n, np.float32)
    # SIMD-group 0: 1 + 31 * 2^-8. Rounding after every lane would stay at 1.0; one rounding of the
    # float sum gives 1.125.
    v[0] = 1.0
    v[1:32] = 2.0 ** -8
    v[32:] = bf(rng.uniform(-3, 3, 32).astype(np.float32))
    v[32:][np.abs(v[32:]) < 0.05] = 0.5
    bits = f32_to_bf16(v)
    v = bf16_to_f32(bits)
    out = run("bf16.metal", "custom_kernel_bfmath__bfloat16_t_bfloat16_t_bfloat16_t", (n,), (n,),
              {0: bits, 1: f"fill:uint16:{n * 25}:65535"}, [1])
    if not out:
        return
    o = out[1].reshape(n, 25)
    av = np.abs(v)
    with np.errstate(all="ignore"):
        check_bf16("bf16: metal::exp", o[:, 0], np.exp(v), ulps=1)
        check_bf16("bf16: metal::precise::sqrt", o[:, 1], np.sqrt(av))
        check_bf16("bf16: metal::fast::exp", o[:, 2], np.exp(v), ulps=1)
        check_bf16("bf16: metal::log", o[:, 3], np.log(av), ulps=1)
        check_bf16("bf16: metal::tanh", o[:, 4], np.tanh(v), ulps=1)
        check_bf16("bf16: metal::max(v, T(0))", o[:, 5], np.maximum(v, 0))
        check_bf16("bf16: metal::fma (one rounding)", o[:, 6], (v.astype(np.float64) ** 2 + 1).astype(np.float32))
        check_bf16("bf16: log1p(bfloat16_t)", o[:, 7], log1p_f32(av), ulps=1)
        check_bf16("bf16: metal::precise::rsqrt", o[:, 8], f32(1) / np.sqrt(av), ulps=1)
        check_bf16("bf16: metal::floor(v * T(3))", o[:, 9], np.floor(bf(v * f32(3))))
    groups = v.reshape(2, 32)

    def seq(op, g, init):
        acc, res = f32(init), []
        for x in g:
            acc = f32(op(acc, x))
            res.append(acc)
        return np.array(res, np.float32)
    add = lambda a, b: a + b
    total = np.repeat([seq(add, g, 0)[-1] for g in groups], 32)
    check_bf16("bf16: simd_sum (float sum, rounded once)", o[:, 10], total)
    check_equal("bf16: simd_sum group 0 is 1.125 (not 1.0)", bf16_to_f32(o[0:32, 10]), np.full(32, 1.125, np.float32))
    inc = np.concatenate([seq(add, g, 0) for g in groups])
    exc = np.concatenate([np.concatenate([[0], seq(add, g, 0)[:-1]]) for g in groups]).astype(np.float32)
    check_bf16("bf16: simd_prefix_inclusive_sum", o[:, 11], inc)
    check_bf16("bf16: simd_prefix_exclusive_sum", o[:, 12], exc)
    lane = np.arange(n) % 32
    gi = np.arange(n) - lane
    check_bf16("bf16: simd_shuffle_down(v, 1)", o[:, 13], np.where(lane + 1 < 32, v[gi + np.minimum(lane + 1, 31)], v))
    check_bf16("bf16: simd_shuffle_up(v, 2)", o[:, 14], np.where(lane >= 2, v[gi + np.maximum(lane - 2, 0)], v))
    check_bf16("bf16: simd_shuffle_xor(v, 5)", o[:, 15], v[gi + (lane ^ 5)])
    check_bf16("bf16: simd_max", o[:, 16], np.repeat(groups.max(1), 32))
    check_bf16("bf16: simd_min", o[:, 17], np.repeat(groups.min(1), 32))
    check_bf16("bf16: simd_broadcast(v, 7)", o[:, 18], v[gi + 7])
    check_bf16("bf16: simd_shuffle_and_fill_down(v, -1, 3)", o[:, 19],
               np.where(lane + 3 < 32, v[gi + np.minimum(lane + 3, 31)], -1))
    w = bf(bf(v * f32(0.5)) + f32(1))
    prod = np.repeat([seq(lambda a, b: a * b, g, 1)[-1] for g in w.reshape(2, 32)], 32)
    check_bf16("bf16: simd_product (float product, rounded once)", o[:, 20], prod)
    check_bf16("bf16: bfloat16_to_uint16 / uint16_to_bfloat16", o[:, 21], -v)
    check_bf16("bf16: metal::precise::divide", o[:, 22], v / f32(3))
    check_bf16("bf16: metal::min3", o[:, 23], np.minimum(np.minimum(v, 0.25), -v))
    xor = np.repeat([np.bitwise_xor.reduce(g.view(np.uint32)) for g in groups], 32).view(np.float32)
    check_bf16("bf16: simd_xor (of float bit patterns)", o[:, 24], xor)


def bf16_next_toward(x, y):
    """nextafter in bfloat16 steps (mslsim; MLX's overload rounds float's nextafter back to x)."""
    b = f32_to_bf16(x).astype(np.int32)
    up = (x < y) == (x >= 0)
    r = np.where(x == y, b, np.where(up, b + 1, b - 1))
    return bf16_to_f32(r.astype(np.uint16))


def test_bf16_all():
    rng = np.random.default_rng(6)
    n = 32
    x = bf(rng.uniform(0.1, 0.9, n).astype(np.float32))
    y = bf(rng.uniform(0.5, 2.0, n).astype(np.float32))
    z = bf(rng.uniform(-1.0, 1.0, n).astype(np.float32))
    out = run("bf16.metal", "custom_kernel_bfall_bfloat16_t_bfloat16_t_bfloat16_t_bfloat16_t", (n,), (n,),
              {0: f32_to_bf16(x), 1: f32_to_bf16(y), 2: f32_to_bf16(z), 3: f"fill:uint16:{n * 3 * 51}:65535"}, [3])
    if not out:
        return
    o = out[3].reshape(n, 51, 3)
    pi = np.float32(np.pi)
    z4 = bf(z * f32(4))
    med = lambda a, b, c: np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
    with np.errstate(all="ignore"):
        mant, expo = np.frexp(y)
        refs = [
            ("abs", np.abs(z)), ("acos", np.arccos(x)), ("acosh", np.arccosh(bf(x + 1))), ("asin", np.arcsin(x)),
            ("asinh", np.arcsinh(z)), ("atan", np.arctan(z)), ("atan2", np.arctan2(z, y)), ("atanh", np.arctanh(x)),
            ("ceil", np.ceil(z)), ("cos", np.cos(z)), ("cosh", np.cosh(z)), ("cospi", np.cos(pi * z)),
            ("divide", x / y), ("exp", np.exp(z)), ("exp10", np.power(f32(10), z)), ("exp2", np.exp2(z)),
            ("fabs", np.abs(z)), ("fdim", np.maximum(x - y, 0)), ("floor", np.floor(z)),
            ("fma", (x.astype(np.float64) * y + z).astype(np.float32)), ("fmax", np.fmax(x, z)),
            ("fmax3", np.fmax(np.fmax(x, y), z)), ("fmedian3", med(x, y, z)), ("fmin", np.fmin(x, z)),
            ("fmin3", np.fmin(np.fmin(x, y), z)), ("fmod", np.fmod(z, x)), ("fract", z - np.floor(z)),
            ("frexp", None), ("ldexp", z * f32(8)), ("log", np.log(y)), ("log10", np.log10(y)),
            ("log2", np.log2(y)), ("max", np.maximum(x, z)), ("max3", np.maximum(np.maximum(x, y), z)),
            ("median3", med(x, y, z)), ("min", np.minimum(x, z)), ("min3", np.minimum(np.minimum(x, y), z)),
            ("nextafter", bf16_next_toward(x, y)), ("pow", np.power(y, z)), ("powr", np.power(y, x)),
            ("rint", np.rint(z4)), ("round", np.trunc(z4 + np.copysign(f32(0.5), z4))), ("rsqrt", f32(1) / np.sqrt(y)),
            ("sin", np.sin(z)), ("sinh", np.sinh(z)), ("sinpi", np.sin(pi * z)), ("sqrt", np.sqrt(y)),
            ("tan", np.tan(z)), ("tanh", np.tanh(z)), ("tanpi", np.tan(pi * x)), ("trunc", np.trunc(z4)),
        ]
    assert len(refs) == 51
    for f, (name, ref) in enumerate(refs):
        if name == "frexp":
            check_bf16("bf16 all: frexp mantissa (metal, fast)", o[:, f, :2], np.stack([mant, mant], 1).astype(np.float32))
            check_bf16("bf16 all: frexp exponent", o[:, f, 2], expo.astype(np.float32))
            continue
        ref = np.asarray(ref, np.float32)
        # metal::, fast:: and precise:: all compute in float and round once (1 ulp for libm differences).
        check_bf16(f"bf16 all: {name} in metal::, fast::, precise::", o[:, f, :], np.stack([ref] * 3, 1), ulps=1)


def test_misc():
    out = run("misc.metal", "custom_kernel_limits_int64_t", (1,), (1,), {0: "fill:int64:64:-999"}, [0])
    if out:
        o = out[0]
        check_equal("Limits<float> (bits)", o[0:4], [0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF])
        check_equal("Limits<float16_t> (bits)", o[4:8], [0x7C00, 0xFC00, 0x7BFF, 0xFBFF])
        check_equal("Limits<bfloat16_t> (bits)", o[8:12], [0x7F80, 0xFF80, 0x7F7F, 0xFF7F])
        ints = [127, -128, 255, 0, 32767, -32768, 65535, 0, 2**31 - 1, -2**31, 2**32 - 1, 0,
                2**63 - 1, -2**63, -1, 0, 1, 0, 2**31 - 1, -128]
        check_equal("Limits<integers and bool>", o[12:32], np.array(ints, np.int64))
        check_equal("WorkPerThread<T>::n", o[32:37], [8, 4, 2, 1, 1])
        check_equal("ceildiv", o[37:42], [4, 3, 1, -(-(2**40) // 3), 1])
        check_equal("defines.h constants", o[42:48], [4, 4, 4, 4, 4, 4096])
        check_equal("ConditionalType", o[48:50], [8, 1])
        check_equal("cast_to (bool specialisations and static_cast)", o[50:61],
                    [0, 0, 1, 1, 0, 0, 1, 0, 1, -2, 44])
        check_equal("cast_to<float16_t>(true), bfloat16_to_uint16, uint16_to_bfloat16", o[61:64],
                    [0x3C00, 0xC000, 0x3F80])

    x = np.arange(64, dtype=np.float32) - 20
    for kernel, factor, inp in [("scale_float_3", 3, x), ("scale_int_5", 5, np.arange(64, dtype=np.int32) - 9),
                                ("scale_float_7", 7, x)]:
        out = run("misc.metal", kernel, (64,), (32,), {0: inp, 1: np.full(64, -1, inp.dtype)}, [1])
        if out:
            check_equal(f"instantiate_kernel: {kernel}", out[1], (inp * factor).astype(inp.dtype))

    rng = np.random.default_rng(4)
    n = 64
    a = rng.integers(-2**62, 2**62, n, dtype=np.int64)
    a[::3] ^= 1  # mix of odd and even values for the bool shuffles
    out = run("misc.metal", "custom_kernel_shuffle64_int64_t_int64_t", (n,), (n,),
              {0: a, 1: f"fill:int64:{n * 10}:-999"}, [1])
    if out:
        o = out[1].reshape(n, 10)
        lane = np.arange(n) % 32
        gi = np.arange(n) - lane
        at = lambda arr, src: arr[gi + np.clip(src, 0, 31)]
        u = a.view(np.uint64) ^ np.uint64(0xF0F0F0F000000000)
        b = (a & 1) != 0
        check_equal("simd_shuffle_down(int64_t)", o[:, 0], np.where(lane + 3 < 32, at(a, lane + 3), a))
        check_equal("simd_shuffle_up(uint64_t)", o[:, 1], np.where(lane >= 5, at(u, lane - 5), u).view(np.int64))
        check_equal("simd_shuffle(int64_t)", o[:, 2], at(a, 31 - lane))
        check_equal("simd_shuffle_and_fill_up(int64_t)", o[:, 3], np.where(lane >= 4, at(a, lane - 4), at(-a, lane + 28)))
        check_equal("simd_shuffle_and_fill_up(uint64_t)", o[:, 4],
                    np.where(lane >= 1, at(u, lane - 1), at(~u, lane + 31)).view(np.int64))
        check_equal("simd_shuffle_down(bool)", o[:, 5], np.where(lane + 1 < 32, at(b, lane + 1), b))
        check_equal("simd_shuffle_up(bool)", o[:, 6], np.where(lane >= 1, at(b, lane - 1), b))
        check_equal("simd_shuffle_and_fill_up(bool)", o[:, 7], np.where(lane >= 2, at(b, lane - 2), at(~b, lane + 30)))
        k = np.arange(n)
        check_equal("simd_shuffle_and_fill_up(complex64_t)", o[:, 8], np.where(lane >= 2, -2 * (k - 2), 2 * (k + 30)))
        check_equal("simd_shuffle_up(complex64_t)", o[:, 9], np.where(lane >= 1, k - 1, k))

    # MLX's own two-line instantiate_kernel (a backslash-continued attribute list in a macro).
    ok, text = compile_ok("multiline_attr.metal")
    if ok:
        global passes
        passes += 1
        print("ok   two-line instantiate_kernel macro in user code")
    else:
        fail("two-line instantiate_kernel macro in user code", text.strip())


def test_args():
    rng = np.random.default_rng(5)
    a = rng.uniform(-4, 4, (3, 6)).astype(np.float32)
    b = np.array([3, 4, 5], np.int32)
    c = bf(rng.uniform(-2, 2, 4).astype(np.float32))
    d = np.float32(7.3)
    out = run("args.metal", "custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t",
              (2, 3), (2, 3), {0: a, 1: b, 2: f32_to_bf16(c), 3: np.array(d).reshape(()),
                               4: "fill:float32:6:-1", 5: "fill:int32:6:-1"}, [4, 5])
    if out:
        i = np.arange(6)
        t = a.reshape(-1)[i * 3].astype(np.float16)
        want1 = (t * np.float16(2)).astype(np.float32) + c[i % 4] * d
        check_equal("args: bool/int/dtype template args, constant arrays, bfloat16 and 0-d inputs (out1)",
                    out[4], want1.astype(np.float32))
        check_equal("args: out2", out[5], (3 * b[i % 3] + 1).astype(np.int32))


def measure_timing():
    """Compile time of a trivial kernel with and without the preamble (median of 5 runs)."""
    kernel = ("[[kernel]] void k(device float* out [[buffer(0)]], uint3 thread_position_in_grid "
              "[[thread_position_in_grid]]) { out[thread_position_in_grid.x] = metal::exp(out[0]); }\n")
    results = {}
    for label, text in [("metal_stdlib only", "#include <metal_stdlib>\nusing namespace metal;\n" + kernel),
                        ("with mlx_preamble.h", "#include <__mslsim/mlx_preamble.h>\n" + kernel)]:
        path = os.path.join(TMP, "timing.metal")
        with open(path, "w") as f:
            f.write(text)
        times = []
        for _ in range(5):
            p = subprocess.run([MSLSIM, "run", path, "--kernel", "k", "--grid", "1", "--threadgroup", "1",
                                "--buffer", "0=zeros:float32:1", "--timing"], capture_output=True, text=True)
            for tok in (p.stdout + p.stderr).split():
                if tok.startswith("compile_ms="):
                    times.append(float(tok.split("=")[1]))
        results[label] = float(np.median(times)) if times else float("nan")
    for label, ms in results.items():
        print(f"timing: {label}: compile_ms median {ms:.1f}")
    print(f"timing: preamble adds {results['with mlx_preamble.h'] - results['metal_stdlib only']:.1f} ms")


def main():
    global MSLSIM, TMP
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    MSLSIM = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
        test_strided()
        test_complex()
        test_bf16()
        test_bf16_all()
        test_misc()
        test_args()
        if "--timing" in sys.argv[2:]:
            measure_timing()
    print(f"{passes} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
