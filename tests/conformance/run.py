#!/usr/bin/python3
"""Conformance sweeps of mslsim's MSL standard library, run through the mslsim CLI.

Usage: /usr/bin/python3 tests/conformance/run.py PATH_TO_MSLSIM [--area AREA ...] [--filter TEXT]
       [--verbose] [--keep DIR]
AREA: math common integer relational geometric conversion (default: all). Exit status 1 on any
failure, an XFAIL that passes, or a case that does not compile.

The table (functions.py) lists each function with its reference, domain and the bound the MSL
specification gives; this file draws the inputs (special values, edges, random values; every bit
pattern for one-argument half and bfloat functions), writes one kernel per group of cases (a switch
over case numbers; all cases of a group share one input and one output byte buffer), runs it once
with `mslsim run`, and checks every result against the float64/Python-integer reference. A case
that does not compile is reported (with the compiler's message) and the rest of its group is run
without it.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fp  # noqa: E402
import functions as T  # noqa: E402
import sweep  # noqa: E402
from fp import BFLOAT, FLOAT, HALF, FMTS  # noqa: E402

RNG_SEED = 20240601
CTYPE_NP = {"float": np.float32, "half": np.float16, "bfloat": np.uint16, "int": np.int32,
            "uint": np.uint32, "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
            "long": np.int64, "ulong": np.uint64, "bool": np.uint8}


# ---------------------------------------------------------------- a case
class Case:
    """One function x type x namespace (x vector width). args/outs: MSL scalar type names; body:
    C++ statements reading a0.. (or A0(j), lane j of a vector) and writing r0..; inputs: arrays of
    buffer elements; check(inputs, outputs, n) -> dict(checked, failed, max_ulp, detail)."""

    def __init__(self, area, func, type_, ns, args, outs, body, inputs, check, bound="", vec=0, xfail=None):
        self.area, self.func, self.type, self.ns = area, func, type_, ns
        self.args, self.outs, self.body, self.inputs, self.check = args, outs, body, inputs, check
        self.bound, self.vec, self.xfail = bound, vec, xfail
        self.n = len(inputs[0])
        self.decoded = None

    def inputs_decoded(self):
        """The inputs as float64 (floats) or Python-int-valued arrays, padded like the buffer."""
        return self.decoded if self.decoded is not None else \
            [fp.decode(a, FMTS[t]) if t in FMTS else np.asarray(a) for a, t in zip(self.inputs, self.args)]

    @property
    def key(self):
        v = f"{self.vec}" if self.vec else ""
        ns = f"{self.ns}::" if self.ns not in ("", "metal") else ""
        return f"{self.area}/{ns}{self.func}/{self.type}{v}"


# ---------------------------------------------------------------- inputs
def specials(fmt):
    v = [np.nan, np.inf, -np.inf, 0.0, -0.0, fmt.min_sub, -fmt.min_sub, 2 * fmt.min_sub, -3 * fmt.min_sub,
         fmt.min_normal - fmt.min_sub, -(fmt.min_normal - fmt.min_sub), fmt.min_normal, -fmt.min_normal,
         fmt.max, -fmt.max, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 0.25, 1.5, -1.5, 2.5, -2.5, 0.75,
         10.0, -10.0, 100.0, math.pi, -math.pi, math.pi / 2, -math.pi / 2, math.e, 1 - 2.0 ** -fmt.p,
         1 + 2.0 ** (1 - fmt.p), -1 + 2.0 ** -fmt.p, 7.0, 1e-3, -1e-3]
    return np.array(v)


def rand_bits(rng, fmt, n):
    """Random finite values uniformly over bit patterns."""
    if fmt is FLOAT:
        b = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
        v = b.view(np.float32).astype(np.float64)
    else:
        v = fp.decode(rng.integers(0, 2 ** 16, n).astype(np.uint16), fmt) if fmt is BFLOAT else \
            rng.integers(0, 2 ** 16, n).astype(np.uint16).view(np.float16).astype(np.float64)
    return v[np.isfinite(v)]


def near(fmt, centers, k=4):
    """Values within k ulps of each center."""
    out = []
    for c in centers:
        c = float(fp.round64(c, fmt))
        u = float(fp.ulp(c, fmt))
        out += [c + j * u for j in range(-k, k + 1)]
    return np.array(out)


def logu(rng, lo, hi, n, signed=True):
    v = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
    if signed:
        v *= rng.choice([-1.0, 1.0], n)
    return v


def domain_values(dom, fmt, rng):
    """float64 candidate inputs of a one-argument function (rounded to fmt by the caller)."""
    S = specials(fmt)
    top = math.log(fmt.max)
    base = [S, rand_bits(rng, fmt, 600)]
    if dom == "any":
        extra = [rng.uniform(-10, 10, 1500), logu(rng, fmt.min_sub * 4, fmt.max / 4, 1200)]
    elif dom == "unit":
        extra = [rng.uniform(-1, 1, 2000), near(fmt, [1, -1, 0.5, -0.5], 8), logu(rng, 1e-30, 1, 800),
                 rng.uniform(-1.1, 1.1, 300)]
    elif dom == "acosh":
        extra = [1 + logu(rng, 2.0 ** -fmt.p, 1, 1000, False), rng.uniform(1, 100, 1000), near(fmt, [1], 8),
                 logu(rng, 1, fmt.max, 800, False), rng.uniform(-2, 1, 100)]
    elif dom == "atanh":
        extra = [rng.uniform(-1, 1, 2000), near(fmt, [1, -1], 16), logu(rng, 1e-30, 1, 800),
                 1 - logu(rng, 2.0 ** -fmt.p, 0.5, 300, False), rng.uniform(-2, 2, 100)]
    elif dom == "trig":
        ks = np.arange(-64, 65)
        extra = [rng.uniform(-10, 10, 1500), near(fmt, ks * math.pi / 2, 2), rng.uniform(-1e4, 1e4, 500),
                 logu(rng, 1e-30, fmt.max, 500), rng.uniform(-math.pi, math.pi, 500)]
    elif dom == "pi":
        ks = np.arange(-40, 41) / 4
        extra = [rng.uniform(-4, 4, 1500), near(fmt, ks, 3), rng.integers(-100000, 100000, 200).astype(float),
                 rng.integers(-1000, 1000, 200) + 0.5, logu(rng, 1e-30, fmt.max, 500), rng.uniform(-1, 1, 500)]
    elif dom == "hyper":
        extra = [rng.uniform(-20, 20, 1500), rng.uniform(-top - 2, top + 2, 1000), logu(rng, 1e-30, 1, 500),
                 near(fmt, [top, -top], 8)]
    elif dom == "exp":
        lo = math.log(fmt.min_sub)
        extra = [rng.uniform(lo - 3, top + 2, 2000), rng.uniform(-1, 1, 500), near(fmt, [top, lo, math.log(fmt.min_normal)], 8),
                 logu(rng, 1e-30, 1, 300)]
    elif dom == "exp2":
        lo = fmt.emin - fmt.p + 1
        extra = [rng.uniform(lo - 3, fmt.emax + 3, 2000), np.arange(lo - 2, fmt.emax + 3).astype(float),
                 rng.uniform(-1, 1, 500), near(fmt, [fmt.emax + 1, lo, fmt.emin], 8)]
    elif dom == "exp10":
        lo = math.log10(fmt.min_sub)
        extra = [rng.uniform(lo - 2, math.log10(fmt.max) + 2, 2000), np.arange(int(lo) - 1, 40).astype(float),
                 rng.uniform(-1, 1, 500)]
    elif dom in ("log", "pos"):
        extra = [logu(rng, fmt.min_sub, fmt.max, 2000, False), near(fmt, [1, 2, 0.5, 4, 10], 8),
                 rng.uniform(0, 4, 1000), rng.uniform(-2, 0, 50)]
    else:
        raise ValueError(dom)
    return np.concatenate(base + extra)


def pairs(fmt, rng, dom, n):
    """float64 argument pairs for two-argument functions."""
    S = specials(fmt)
    gx, gy = np.meshgrid(S, S)
    xs, ys = [gx.ravel()], [gy.ravel()]
    if dom == "pow":
        x = np.concatenate([rng.uniform(0, 4, n // 2), logu(rng, fmt.min_sub, fmt.max, n // 4, False),
                            -rng.uniform(0, 4, n // 8), rng.uniform(0.9, 1.1, n // 8)])
        y = np.concatenate([rng.uniform(-30, 30, n // 2), rng.integers(-40, 40, n // 4).astype(float),
                            rng.integers(-40, 40, n // 8) + 0.5, rng.uniform(-2000, 2000, n // 8)])
        m = min(len(x), len(y))
        xs.append(x[:m])
        ys.append(rng.permutation(y)[:m])
    elif dom == "powr":
        xp = np.abs(gx.ravel())
        xs[0] = xp
        x = np.concatenate([rng.uniform(0, 4, n // 2), logu(rng, fmt.min_sub, fmt.max, n // 4, False),
                            rng.uniform(0.9, 1.1, n // 4)])
        y = np.concatenate([rng.uniform(-30, 30, n // 2), rng.integers(-40, 40, n // 4).astype(float),
                            rng.uniform(-2000, 2000, n // 4)])
        m = min(len(x), len(y))
        xs.append(x[:m])
        ys.append(rng.permutation(y)[:m])
    else:   # pairs
        a = np.concatenate([rand_bits(rng, fmt, n // 3), rng.uniform(-10, 10, n // 3), logu(rng, 1e-6, 1e6, n // 3)])
        b = np.concatenate([rand_bits(rng, fmt, n // 3), rng.uniform(-10, 10, n // 3), logu(rng, 1e-6, 1e6, n // 3)])
        m = min(len(a), len(b))
        xs.append(a[:m])
        ys.append(rng.permutation(b)[:m])
        # close pairs (cancellation, equality, nextafter neighbours)
        c = rng.uniform(-10, 10, n // 8)
        xs.append(c)
        ys.append(c * (1 + rng.integers(-3, 4, len(c)) * 2.0 ** -fmt.p))
    return np.concatenate(xs), np.concatenate(ys)


def triples(fmt, rng, dom, n):
    S = specials(fmt)
    if dom == "fma":
        a = np.concatenate([rng.uniform(-10, 10, n // 2), rand_bits(rng, fmt, n // 4), rng.choice(S, n // 4)])
        b = np.concatenate([rng.uniform(-10, 10, n // 2), rand_bits(rng, fmt, n // 4), rng.choice(S, n // 4)])
        m = min(len(a), len(b))
        a, b = a[:m], rng.permutation(b)[:m]
        a, b = fp.round64(a, fmt), fp.round64(b, fmt)
        c = np.concatenate([rng.uniform(-10, 10, m // 2), rng.choice(S, m // 4), np.zeros(m - m // 2 - m // 4)])
        c = rng.permutation(c)
        # cancellation: c = -round(a*b) (+ small), the case where fma differs from a*b+c most
        k = rng.random(m) < 0.3
        with np.errstate(all="ignore"):
            c = np.where(k, -fp.round64(a * b, fmt) * (1 + rng.integers(-2, 3, m) * 2.0 ** -fmt.p), c)
        return a, b, c
    if dom == "clamp":
        x = np.concatenate([rng.uniform(-10, 10, n // 2), rand_bits(rng, fmt, n // 4), rng.choice(S, n // 4)])
        m = len(x)
        lo = rng.uniform(-8, 8, m)
        hi = lo + rng.uniform(0, 8, m)
        lo, hi = fp.round64(lo, fmt), fp.round64(hi, fmt)
        return x, lo, hi
    if dom == "mix":
        x = rng.uniform(-100, 100, n)
        y = rng.uniform(-100, 100, n)
        a = np.concatenate([rng.uniform(0, 1, n - 8), [0, 1, 0.5, 0.25, 0, 1, 0.75, 0.125]])
        return x, y, a
    if dom == "smooth":
        e0 = rng.uniform(-10, 10, n)
        e1 = e0 + rng.uniform(0.01, 10, n)
        e0, e1 = fp.round64(e0, fmt), fp.round64(e1, fmt)
        ok = e1 > e0
        e1 = np.where(ok, e1, e0 + 1)
        x = np.concatenate([rng.uniform(-12, 12, n - 4), [-np.inf, np.inf, 0, 1]])
        return e0, e1, x
    # triples: min3/max3/median3
    pool = np.concatenate([S, rng.uniform(-10, 10, 64)])
    x = np.concatenate([rng.choice(pool, n // 2), rng.uniform(-10, 10, n // 2)])
    y = np.concatenate([rng.choice(pool, n // 2), rng.uniform(-10, 10, n // 2)])
    z = np.concatenate([rng.choice(pool, n // 2), rng.uniform(-10, 10, n // 2)])
    return x, y, z


# ---------------------------------------------------------------- checks
def float_check(fmt, refs, bounds, fast=False, zero_sign=True, skip=None, fast_dom=None, alt=None,
                inexact_ref=False, int_outs=()):
    """A check over float (or int, for outputs listed in int_outs) results: refs[k](*xs) is the
    float64 reference of result k; bounds[k] its Bound."""

    def check(xs, outs, n):
        xs = [x[:n] for x in xs]
        mask = np.ones(n, bool)
        if skip is not None:
            mask &= ~skip(xs)
        if fast:
            mask &= ~T.nonfinite_any(xs)
            if fast_dom is not None:
                with np.errstate(invalid="ignore"):
                    mask &= fast_dom(xs)
        res = dict(checked=0, failed=0, max_ulp=0.0, detail=[])
        for k, ref_fn in enumerate(refs):
            got = outs[k][:n]
            with np.errstate(all="ignore"):
                ref = np.asarray(ref_fn(*xs), np.float64)
            m = mask.copy()
            if k in int_outs:
                bad = m & (got != ref)
                err = None
            else:
                b = bounds[k]
                if fast:
                    with np.errstate(over="ignore"):
                        m &= np.isfinite(fp.round64(ref, fmt))
                if b.kind == "undefined":
                    continue
                bad, err, m = compare_float(got, ref, fmt, b, xs, m, fast, zero_sign, alt, inexact_ref)
            res["checked"] += int(m.sum())
            res["failed"] += int(bad.sum())
            if err is not None and m.any():
                e = err[m & np.isfinite(err)]
                if e.size:
                    res["max_ulp"] = max(res["max_ulp"], float(e.max()))
            for i in np.flatnonzero(bad)[:3]:
                res["detail"].append(f"result {k}: in=({', '.join(repr(float(x[i])) for x in xs)}) "
                                     f"got={float(got[i])!r} want={float(ref[i])!r}"
                                     + (f" ({float(err[i]):.3g} ulp)" if err is not None and np.isfinite(err[i]) else ""))
        return res
    return check


def compare_float(got, ref, fmt, b, xs, m, fast, zero_sign, alt, inexact_ref):
    got = np.asarray(got, np.float64)
    if zero_sign == "input":     # signs of zero checked only where an argument is a zero
        zs = np.zeros(got.shape, bool)
        for x in xs:
            zs |= x == 0
    else:
        zs = np.full(got.shape, bool(zero_sign))
    ref_nan = np.isnan(ref)
    got_nan = np.isnan(got)
    bad = m & (ref_nan != got_nan)
    num = m & ~ref_nan & ~got_nan
    err = fp.ulp_error(got, ref, fmt)
    if b.kind == "cr":
        want = fp.round64(ref, fmt)
        ok = got == want
        if inexact_ref:
            amb, other = fp.midpoint_ambiguous(ref, fmt)
            ok |= amb & (got == other)
        if alt is not None:
            with np.errstate(all="ignore"):
                ref2 = alt(*xs)
                ok |= got == fp.round64(ref2, fmt)
                err = np.fmin(err, fp.ulp_error(got, ref2, fmt))   # report the nearer accepted value
        if not fast:
            ok &= ~(zs & (want == 0) & (got == 0) & (np.signbit(got) != np.signbit(want)))
        bad |= num & ~ok
        return bad, err, m
    if b.kind == "ulp":
        allowed = np.full(got.shape, float(b.n))
    elif b.kind == "abs":
        with np.errstate(all="ignore"):
            allowed = b.n / fp.ulp(ref, fmt)
        err = np.where(np.isfinite(got), np.abs(got - ref), np.inf) / fp.ulp(ref, fmt)
    elif b.kind == "ulpfn":
        allowed = b.fn(xs, ref, fmt)
    elif b.kind == "formula":
        with np.errstate(all="ignore"):
            fr = b.fn(*xs)
            fine = np.isfinite(fr) & (np.abs(fr) <= fmt.max)
            num &= fine
            m = m & (fine | ~num)
            allowed = fp.ulp_error(fr, ref, fmt) + 4
    else:
        raise ValueError(b.kind)
    # a true infinity (pole, or beyond even float64) must be returned exactly
    inf_ref = np.isinf(ref)
    with np.errstate(invalid="ignore"):
        ok = np.where(inf_ref, got == ref, err <= allowed)
        if alt is not None:
            ref2 = alt(*xs)
            err2 = fp.ulp_error(got, ref2, fmt)
            ok |= np.where(np.isinf(ref2), got == ref2, err2 <= allowed)
            err = np.fmin(err, err2)   # report the nearer accepted value
    if not fast:
        ok &= ~(zs & (ref == 0) & (got == 0) & (np.signbit(got) != np.signbit(ref)))
    bad |= num & ~ok
    return bad, err, m


# ---------------------------------------------------------------- building cases
def load_expr(ctype, k, idx="i"):
    if ctype == "bool":
        return f"(((device const uchar*)(in + OFF{k}))[{idx}] != 0)"
    return f"((device const {ctype}*)(in + OFF{k}))[{idx}]"


def fmt_inputs(vals, fmt):
    return fp.encode(fp.round64(vals, fmt), fmt)


def math_cases(rng):
    cases = []
    for m in T.MATH:
        for tname in ("float", "half", "bfloat"):
            fmt = FMTS[tname]
            nss = m.namespaces if tname == "float" else ("metal",)
            for ns in nss:
                if tname == "float":
                    bound = m.bounds["fast" if ns == "fast" else "precise"]
                else:
                    bound = m.bounds[tname]
                if bound is None or bound.kind == "undefined":
                    continue
                xs = math_inputs(m, fmt, rng)
                refs = T.math_refs(m, fmt)
                int_outs = tuple(k for k, o in enumerate(m.outs) if o == "int")
                chk = float_check(fmt, refs, [bound] * len(refs), fast=(ns == "fast"), zero_sign=m.zero_sign,
                                  skip=m.skip, fast_dom=m.fast_dom, alt=m.alt,
                                  inexact_ref=(m.name == "rsqrt"), int_outs=int_outs)
                prefix = {"metal": "metal::", "precise": "metal::precise::", "fast": "metal::fast::"}[ns]
                args = [tname if a == "f" else "int" for a in m.args]
                outs = [tname if o == "f" else "int" for o in m.outs]
                if m.body:
                    body = m.body.format(T=tname, ns=prefix)
                else:
                    body = f"r0 = {prefix}{m.name}({', '.join(f'a{k}' for k in range(len(args)))});"
                inputs = [encode_arg(x, a, fmt) for x, a in zip(xs, m.args)]
                xf = m.xfail.get((tname, ns))
                cases.append(Case("math", m.name, tname, ns, args, outs, body, inputs, chk,
                                  bound.describe(), xfail=xf))
                # one vector overload per function and type (metal:: only)
                if ns == "metal" and m.vec and not m.body and len(m.outs) == 1:
                    w = {"float": 4, "half": 3, "bfloat": 2}[tname]
                    vb = vec_body(prefix + m.name, args, w)
                    vchk = lane_check(chk, w)
                    cases.append(Case("math", m.name, tname, ns, args, outs * w, vb, inputs, vchk,
                                      bound.describe(), vec=w, xfail=xf))
    return cases


def vec_body(fn, args, w):
    lines = []
    for k, a in enumerate(args):
        lanes = ", ".join(f"A{k}({j})" for j in range(w))
        lines.append(f"{a}{w} v{k} = {a}{w}({lanes});")
    lines.append(f"auto R = {fn}({', '.join(f'v{k}' for k in range(len(args)))});")
    lines += [f"r{j} = R[{j}];" for j in range(w)]
    return " ".join(lines)


def lane_check(chk, w):
    """Lane j of a vector result is the function of the inputs rolled by j."""
    def check(xs, outs, n):
        total = dict(checked=0, failed=0, max_ulp=0.0, detail=[])
        N = len(xs[0])
        for j in range(w):
            r = chk([np.roll(x, -j) for x in xs], [outs[j]], n)
            total["checked"] += r["checked"]
            total["failed"] += r["failed"]
            total["max_ulp"] = max(total["max_ulp"], r["max_ulp"])
            total["detail"] += [f"lane {j}: {d}" for d in r["detail"]]
        return total
    return check


def encode_arg(x, a, fmt):
    if a == "i":
        return np.asarray(x, np.int32)
    return fp.encode(x, fmt)


def math_inputs(m, fmt, rng):
    """float64 inputs (exactly representable in fmt), one array per argument."""
    if m.args == "f":
        if fmt is FLOAT:
            v = fp.round64(domain_values(m.dom if m.dom != "any" or True else "any", fmt, rng), fmt)
        else:
            v = fp.all_values(fmt)
        return [v]
    if m.args == "fi":
        x = fp.round64(domain_values("any", fmt, rng), fmt)
        lo = fmt.emin - fmt.p - 2
        k = np.concatenate([rng.integers(lo, fmt.emax + 3, len(x) - 40), np.arange(-20, 20)])
        k = np.concatenate([k[:len(x) - 6], [0, 1, -1, 300, -300, 1000]])[:len(x)]
        return [x, k.astype(np.float64)]
    n = 4096 if fmt is FLOAT else 16384
    if m.args == "ff":
        x, y = pairs(fmt, rng, m.dom, n)
        return [fp.round64(x, fmt), fp.round64(y, fmt)]
    x, y, z = triples(fmt, rng, m.dom, n)
    return [fp.round64(x, fmt), fp.round64(y, fmt), fp.round64(z, fmt)]


# ---------------------------------------------------------------- integer functions
UNSIGNED = {"char": "uchar", "uchar": "uchar", "short": "ushort", "ushort": "ushort", "int": "uint",
            "uint": "uint", "long": "ulong", "ulong": "ulong"}


def int_values(t, rng, n):
    lo, hi = T.int_range(t)
    b = T.INT_BITS[t]
    edges = {lo, lo + 1, hi, hi - 1, 0, 1, -1, 2, -2, hi // 2, hi // 2 + 1, lo // 2, (1 << (b - 2)), 3, 7, 0x55, 100}
    edges = [v for v in edges if lo <= v <= hi]
    rand = [int(v) for v in rng.integers(0, 1 << 62, n, dtype=np.int64)]
    rand = [T.wrap(v * 7919 + (v >> 13), t) for v in rand]      # spread over all bits, 64-bit too
    small = [int(v) for v in rng.integers(max(lo, -300), min(hi, 300) + 1, n // 4)]
    vals = (edges + small + rand)[:n]
    return vals


def integer_cases(rng):
    cases = []
    n = 2048
    for f in T.INTEGER:
        for t in f.types:
            b = T.INT_BITS[t]
            cols = []
            for a in f.args:
                if a == "T":
                    v = int_values(t, rng, n)
                    cols.append([int(x) for x in rng.permutation(np.array(v, dtype=object))])
                elif a == "c":
                    lo, hi = (-(1 << 23), (1 << 23) - 1) if t == "int" else (0, (1 << 24) - 1)
                    v = [lo, hi, 0, 1, -1 if t == "int" else 2] + [int(x) for x in rng.integers(lo, hi + 1, n - 5)]
                    cols.append(v)
            # extract_bits/insert_bits: offset + bits <= width (otherwise undefined)
            if "o" in f.args:
                off = [int(x) for x in rng.integers(0, b + 1, n)]
                bits = [int(rng.integers(0, b - o + 1)) for o in off]
                off[:3], bits[:3] = [0, 0, b // 2], [b, 0, b - b // 2]
                cols += [off, bits]
            cols = [c[:n] for c in cols]
            m = min(len(c) for c in cols)
            cols = [c[:m] for c in cols]
            want = [f.ref(*row, t) for row in zip(*cols)]
            rt = UNSIGNED[t] if f.ret == "U" else t
            argt = [t if a in "Tc" else "uint" for a in f.args]
            inputs = [np.array([T.wrap(v, at) if at != "uint" else v for v in col], dtype=CTYPE_NP[at])
                      for col, at in zip(cols, argt)]
            want_arr = np.array([T.wrap(v, rt) for v in want], dtype=CTYPE_NP[rt])
            body = f"r0 = metal::{f.name}({', '.join(f'a{k}' for k in range(len(argt)))});"
            cases.append(Case("integer", f.name, t, "metal", argt, [rt], body, inputs,
                              exact_check([want_arr], cols), f"exact [{f.src}]", xfail=f.xfail.get(t)))
            if f.name in ("clz", "popcount", "addsat", "mulhi", "rotate", "clamp", "abs") and t in ("uchar", "int", "ulong"):
                w = 4 if t != "ulong" else 2
                vb = vec_body(f"metal::{f.name}", argt, w)
                cases.append(Case("integer", f.name, t, "metal", argt, [rt] * w, vb, inputs,
                                  lane_exact_check(f, t, rt, cols, w), f"exact [{f.src}]", vec=w))
    return cases


def exact_check(wants, cols=None):
    def check(xs, outs, n):
        res = dict(checked=0, failed=0, max_ulp=0.0, detail=[])
        for k, want in enumerate(wants):
            got = np.asarray(outs[k][:n])
            w = np.asarray(want[:n])
            if got.dtype.kind == "f" or w.dtype.kind == "f":
                bad = ~((got == w) | (np.isnan(got.astype(np.float64)) & np.isnan(w.astype(np.float64))))
            else:
                bad = got != w
            res["checked"] += n
            res["failed"] += int(bad.sum())
            for i in np.flatnonzero(bad)[:3]:
                ins = ", ".join(str(c[i]) for c in cols) if cols else ", ".join(str(x[i]) for x in xs)
                res["detail"].append(f"result {k}: in=({ins}) got={got[i]} want={w[i]}")
        return res
    return check


def lane_exact_check(f, t, rt, cols, w):
    n = len(cols[0])
    wants = []
    for j in range(w):
        rolled = [c[j:] + c[:j] for c in cols]
        wants.append(np.array([T.wrap(f.ref(*row, t), rt) for row in zip(*rolled)], dtype=CTYPE_NP[rt]))
    return exact_check(wants, cols)


# ---------------------------------------------------------------- relational functions
def unary_float_inputs(fmt, rng):
    if fmt is FLOAT:
        return fp.round64(np.concatenate([specials(fmt), rand_bits(rng, fmt, 3000),
                                          np.array([np.nan] * 4), rng.uniform(-10, 10, 500)]), fmt)
    return fp.all_values(fmt)


def relational_cases(rng):
    cases = []
    src = "exact [MSL4 Table 6.3]"
    for tname in ("float", "half", "bfloat"):
        fmt = FMTS[tname]
        x = unary_float_inputs(fmt, rng)
        with np.errstate(invalid="ignore"):
            refs = {"isnan": np.isnan(x), "isinf": np.isinf(x), "isfinite": np.isfinite(x),
                    "isnormal": np.isfinite(x) & (np.abs(x) >= fmt.min_normal), "signbit": np.signbit(x)}
        enc = [fp.encode(x, fmt)]
        for name, want in refs.items():
            want = want.astype(np.uint8)
            cases.append(Case("relational", name, tname, "metal", [tname], ["bool"], f"r0 = metal::{name}(a0);",
                              enc, exact_check([want], [x]), src))
            w = {"float": 4, "half": 3, "bfloat": 2}[tname]
            wants = [np.roll(want, -j) for j in range(w)]
            cases.append(Case("relational", name, tname, "metal", [tname], ["bool"] * w,
                              vec_body(f"metal::{name}", [tname], w), enc, exact_check(wants, [x]), src, vec=w))
        xs, ys = pairs(fmt, rng, "pairs", 4096)
        xs, ys = fp.round64(xs, fmt), fp.round64(ys, fmt)
        enc2 = [fp.encode(xs, fmt), fp.encode(ys, fmt)]
        for name, fn in T.RELATIONAL_BINARY.items():
            cases.append(Case("relational", name, tname, "metal", [tname, tname], ["bool"],
                              f"r0 = metal::{name}(a0, a1);", enc2, exact_check([fn(xs, ys).astype(np.uint8)], [xs, ys]), src))
        # select(a, b, c): c ? b : a, scalar and vector (bool vector condition)
        c = rng.integers(0, 2, len(xs)).astype(np.uint8)
        want = fp.round64(np.where(c != 0, ys, xs), fmt)
        encs = enc2 + [c]
        cases.append(Case("relational", "select", tname, "metal", [tname, tname, "bool"], [tname],
                          "r0 = metal::select(a0, a1, a2);", encs, exact_check([want], [xs, ys, c]), src))
        w = 4
        wants = [np.roll(want, -j) for j in range(w)]
        cases.append(Case("relational", "select", tname, "metal", [tname, tname, "bool"], [tname] * w,
                          vec_body("metal::select", [tname, tname, "bool"], w), encs, exact_check(wants, [xs, ys, c]), src, vec=w))
        # comparison operators on vectors give bool vectors (MSL4 §2.2 / inventory §2.9)
        for op, fn in (("<", np.less), ("==", np.equal), ("!=", np.not_equal), (">=", np.greater_equal)):
            want = fn(xs, ys).astype(np.uint8)
            wants = [np.roll(want, -j) for j in range(w)]
            body = (f"{tname}4 v0 = {tname}4(A0(0), A0(1), A0(2), A0(3)); {tname}4 v1 = {tname}4(A1(0), A1(1), A1(2), A1(3)); "
                    f"bool4 R = v0 {op} v1; " + " ".join(f"r{j} = R[{j}];" for j in range(w)))
            cases.append(Case("relational", f"operator{op}", tname, "metal", [tname, tname], ["bool"] * w, body,
                              enc2, exact_check(wants, [xs, ys]), "exact [MSL4 §2.2: component-wise, bool vector]", vec=w))
    for int_t in ("int", "uchar", "ulong"):
        v = np.array([T.wrap(int(a), int_t) for a in rng.integers(-(1 << 40), 1 << 40, 2048)], dtype=CTYPE_NP[int_t])
        u = np.array([T.wrap(int(a), int_t) for a in rng.integers(-(1 << 40), 1 << 40, 2048)], dtype=CTYPE_NP[int_t])
        c = rng.integers(0, 2, 2048).astype(np.uint8)
        want = np.where(c != 0, u, v)
        cases.append(Case("relational", "select", int_t, "metal", [int_t, int_t, "bool"], [int_t],
                          "r0 = metal::select(a0, a1, a2);", [v, u, c], exact_check([want], [v, u, c]), src))
        wants = [np.roll(want, -j) for j in range(2)]
        cases.append(Case("relational", "select", int_t, "metal", [int_t, int_t, "bool"], [int_t] * 2,
                          vec_body("metal::select", [int_t, int_t, "bool"], 2), [v, u, c], exact_check(wants, [v, u, c]), src, vec=2))
    # all, any, not on bool vectors: every pattern of 2, 3 and 4 components
    for w in (2, 3, 4):
        pat = np.arange(1 << w, dtype=np.uint8)
        bits = [(pat >> j) & 1 for j in range(w)]
        comps = ", ".join(f"(a0 >> {j}) & 1" for j in range(w))
        allw = np.all(bits, axis=0).astype(np.uint8)
        anyw = np.any(bits, axis=0).astype(np.uint8)
        notw = ((~pat) & ((1 << w) - 1)).astype(np.uint8)
        mk = f"bool{w} v = bool{w}({comps});"
        cases.append(Case("relational", "all", f"bool{w}", "metal", ["uchar"], ["bool"], f"{mk} r0 = metal::all(v);",
                          [pat], exact_check([allw], [pat]), src))
        cases.append(Case("relational", "any", f"bool{w}", "metal", ["uchar"], ["bool"], f"{mk} r0 = metal::any(v);",
                          [pat], exact_check([anyw], [pat]), src))
        packed = " | ".join(f"(uint(n[{j}]) << {j})" for j in range(w))
        cases.append(Case("relational", "not", f"bool{w}", "metal", ["uchar"], ["uchar"],
                          f"{mk} bool{w} n = not(v); r0 = uchar({packed});", [pat], exact_check([notw], [pat]), src))
    return cases


# ---------------------------------------------------------------- conversions
def conv_source_values(t, rng):
    """Values of source type t (float64 for floating types, Python ints otherwise)."""
    if t == "bool":
        return [0, 1] * 8
    if t in FMTS:
        fmt = FMTS[t]
        edges = []
        for it in T.INT_TYPES:
            lo, hi = T.int_range(it)
            edges += [lo, hi, lo - 1, hi + 1, lo + 0.5, hi - 0.5, hi + 0.5, lo - 0.75]
        v = np.concatenate([specials(fmt), np.array(edges, np.float64), rng.uniform(-300, 300, 1000),
                            np.round(rng.uniform(-300, 300, 200)) + 0.5, rand_bits(rng, fmt, 1500),
                            logu(rng, 1, 2.0 ** 66, 800)])
        return fp.round64(v, fmt)
    b = T.INT_BITS[t]
    lo, hi = T.int_range(t)
    # integers whose rounding to float/half/bfloat sits at or next to a midpoint (double rounding)
    tricky = []
    for k in range(9, b):
        for p in (8, 11, 24):
            if k > p:
                for d in (-1, 0, 1):
                    tricky += [(1 << k) + (1 << (k - p)) + d, -((1 << k) + (1 << (k - p)) + d),
                               (1 << k) + (3 << (k - p)) + d]
    tricky = [v for v in tricky if lo <= v <= hi]
    return tricky + int_values(t, rng, 1500)


def conv_expected(src, dst, vals):
    """Expected values (and a mask of values the spec defines) of static_cast<dst>(src value)."""
    n = len(vals)
    defined = np.ones(n, bool)
    if dst == "bool":
        if src in FMTS:
            return (np.asarray(vals) != 0).astype(np.uint8), defined   # NaN != 0: true
        return np.array([int(v != 0) for v in vals], np.uint8), defined
    if dst in FMTS:
        fmt = FMTS[dst]
        if src in FMTS:
            return fp.round64(np.asarray(vals, np.float64), fmt), defined
        return np.array([fp.round_fraction(int(v), fmt) for v in vals], np.float64), defined
    # integer destination
    if src in FMTS:
        x = np.asarray(vals, np.float64)
        lo, hi = T.int_range(dst)
        # out of range: undefined (MSL4 §8.6 is silent); NaN -> 0 is checked by its own cases
        ti = [int(v) if np.isfinite(v) else None for v in x]
        defined = np.array([v is not None and lo <= v <= hi for v in ti])
        out = [v if d else 0 for v, d in zip(ti, defined)]
        return np.array(out, dtype=object), defined
    return np.array([T.wrap(int(v), dst) for v in vals], dtype=object), defined


def conversion_cases(rng):
    cases = []
    for src in T.CONV_TYPES:
        vals = conv_source_values(src, rng)
        if src in FMTS:
            enc = fp.encode(vals, FMTS[src])
            xs = np.asarray(vals, np.float64)
        else:
            enc = np.array([T.wrap(v, src) if src != "bool" else v for v in vals], dtype=CTYPE_NP[src])
            xs = np.array(vals, dtype=object)
        for dst in T.CONV_TYPES:
            if dst == src:
                continue
            want, defined = conv_expected(src, dst, list(xs))
            if dst not in FMTS:
                want = np.array([int(v) for v in want], dtype=object)
                want = np.array([T.wrap(v, dst) if dst != "bool" else v for v in want], dtype=CTYPE_NP[dst])
            rule = ("round to nearest even [MSL4 §8.6]" if dst in FMTS and src != "bool" else
                    "toward zero, NaN -> 0, out of range not checked [MSL4 §8.6]" if src in FMTS and dst != "bool" else
                    "!= 0 [C++]" if dst == "bool" else "0/1 [C++]" if src == "bool" else "modulo 2^n [MSL4 §2.9]")
            if src in FMTS and dst in FMTS:
                rule = "exact / round to nearest even [MSL4 §8.6]"
            key = (src, dst)
            cases.append(Case("conversion", f"{src}->{dst}", src, "metal", [src], [dst],
                              f"r0 = static_cast<{dst}>(a0);", [enc],
                              masked_exact_check(want, defined, xs, dst), f"exact, {rule}",
                              xfail=T.XFAIL.get(("conversion",) + key)))
    # NaN -> 0 (MSL4 §8.6), for every floating source and integer destination
    for src in ("float", "half", "bfloat"):
        fmt = FMTS[src]
        if src == "float":
            nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000], np.uint32).view(np.float32)
        elif src == "half":
            nans = np.array([0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0xFFFF], np.uint16).view(np.float16)
        else:
            nans = np.array([0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0xFFFF], np.uint16)
        xs = fp.decode(nans, fmt)
        for dst in T.INT_TYPES:
            want = np.zeros(len(nans), CTYPE_NP[dst])
            cases.append(Case("conversion", f"{src}(NaN)->{dst}", src, "metal", [src], [dst],
                              f"r0 = static_cast<{dst}>(a0);", [nans], masked_exact_check(want, np.ones(len(nans), bool), xs, dst),
                              "exact, NaN -> 0 [MSL4 §8.6]", xfail=T.XFAIL.get(("conversion", f"{src}(NaN)", dst))))
    # vector conversions (constructor syntax)
    for src, dst in (("float", "int"), ("int", "float"), ("half", "float"), ("float", "half"), ("float", "bfloat"),
                     ("uchar", "float"), ("float", "uchar"), ("bfloat", "float"), ("uint", "half"), ("short", "int")):
        vals = conv_source_values(src, rng)
        if src in FMTS:
            enc = fp.encode(vals, FMTS[src])
            xs = np.asarray(vals, np.float64)
        else:
            enc = np.array([T.wrap(v, src) for v in vals], dtype=CTYPE_NP[src])
            xs = np.array(vals, dtype=object)
        want, defined = conv_expected(src, dst, list(xs))
        if dst not in FMTS:
            want = np.array([T.wrap(int(v), dst) for v in want], dtype=CTYPE_NP[dst])
        w = 4
        lanes = ", ".join(f"A0({j})" for j in range(w))
        body = f"{src}{w} v = {src}{w}({lanes}); {dst}{w} R = {dst}{w}(v); " + " ".join(f"r{j} = R[{j}];" for j in range(w))
        wants = [np.roll(want, -j) for j in range(w)]
        defs = [np.roll(defined, -j) for j in range(w)]
        cases.append(Case("conversion", f"{src}{w}->{dst}{w}", src, "metal", [src], [dst] * w, body, [enc],
                          lanes_masked_check(wants, defs, xs, dst), "exact (as the scalar conversion)", vec=w))
    return cases


def masked_exact_check(want, defined, xs, dst):
    def check(_xs, outs, n):
        got = np.asarray(outs[0][:n])
        w = np.asarray(want[:n])
        d = np.asarray(defined[:n])
        if dst in FMTS:
            bad = d & ~((got == w) | (np.isnan(got) & np.isnan(w)))
            bad |= d & (got == 0) & (w == 0) & (np.signbit(got) != np.signbit(w))
        else:
            bad = d & (got != w)
        res = dict(checked=int(d.sum()), failed=int(bad.sum()), max_ulp=0.0, detail=[])
        for i in np.flatnonzero(bad)[:3]:
            res["detail"].append(f"in={xs[i]!r} got={got[i]!r} want={w[i]!r}")
        return res
    return check


def lanes_masked_check(wants, defs, xs, dst):
    def check(_xs, outs, n):
        total = dict(checked=0, failed=0, max_ulp=0.0, detail=[])
        for j, (w, d) in enumerate(zip(wants, defs)):
            r = masked_exact_check(w, d, np.roll(np.asarray(xs), -j), dst)(None, [outs[j]], n)
            for k in ("checked", "failed"):
                total[k] += r[k]
            total["detail"] += [f"lane {j}: {x}" for x in r["detail"]]
        return total
    return check


# ---------------------------------------------------------------- common functions
def formula_allowed(formulas, fmt):
    def fn(xs, ref, fmt_):
        errs = [fp.ulp_error(T._in_fmt(f, fmt)(*xs), ref, fmt) for f in formulas]
        return np.maximum.reduce(errs) + 1
    return fn


def common_cases(rng):
    cases = []
    for c in T.COMMON:
        for tname in ("float", "half", "bfloat"):
            fmt = FMTS[tname]
            n = 4096 if fmt is FLOAT else 16384
            if c.args == "f":
                xs = [unary_float_inputs(fmt, rng)]
            elif c.args == "ff":
                xs = [fp.round64(v, fmt) for v in pairs(fmt, rng, c.dom, n)]
            else:
                xs = [fp.round64(v, fmt) for v in triples(fmt, rng, c.dom, n)]
            b = c.bound
            if b.kind == "formula":
                b = T.Bound("ulpfn", 0, b.src, formula_allowed(c.formulas, fmt), b.note + " (+1 ulp)")
            for ns in (c.namespaces if tname == "float" else ("metal",)):
                prefix = {"metal": "metal::", "precise": "metal::precise::", "fast": "metal::fast::"}[ns]
                chk = float_check(fmt, [c.ref], [b], fast=(ns == "fast"), zero_sign=c.zero_sign, skip=c.skip)
                args = [tname] * len(c.args)
                body = f"r0 = {prefix}{c.name}({', '.join(f'a{k}' for k in range(len(args)))});"
                inputs = [fp.encode(x, fmt) for x in xs]
                cases.append(Case("common", c.name, tname, ns, args, [tname], body, inputs, chk, b.describe(),
                                  xfail=c.xfail.get((tname, ns))))
                if ns == "metal":
                    w = {"float": 4, "half": 3, "bfloat": 2}[tname]
                    cases.append(Case("common", c.name, tname, ns, args, [tname] * w, vec_body(prefix + c.name, args, w),
                                      inputs, lane_check(chk, w), b.describe(), vec=w))
    return cases


# ---------------------------------------------------------------- geometric functions
def _dot(x, y):
    r = x[0] * y[0]
    for k in range(1, len(x)):
        r = r + x[k] * y[k]
    return r


def _refract(i, n, eta, dt):
    d = _dot(n, i)
    k = dt(1) - eta * eta * (dt(1) - d * d)
    with np.errstate(invalid="ignore"):
        out = [eta * ik - (eta * d + np.sqrt(k)) * nk for ik, nk in zip(i, n)]
    return [np.where(k < 0, dt(0), o) for o in out]


# name: (vector arguments, scalar eta argument, vector result, formula(args, dt))
GEO = {
    "dot": (2, False, False, lambda a, dt: _dot(a[0], a[1])),
    "length": (1, False, False, lambda a, dt: np.sqrt(_dot(a[0], a[0]))),
    "length_squared": (1, False, False, lambda a, dt: _dot(a[0], a[0])),
    "distance": (2, False, False, lambda a, dt: np.sqrt(_dot([p - q for p, q in zip(a[0], a[1])], [p - q for p, q in zip(a[0], a[1])]))),
    "distance_squared": (2, False, False, lambda a, dt: _dot([p - q for p, q in zip(a[0], a[1])], [p - q for p, q in zip(a[0], a[1])])),
    "normalize": (1, False, True, lambda a, dt: [c / np.sqrt(_dot(a[0], a[0])) for c in a[0]]),
    "cross": (2, False, True, lambda a, dt: [a[0][1] * a[1][2] - a[0][2] * a[1][1], a[0][2] * a[1][0] - a[0][0] * a[1][2],
                                             a[0][0] * a[1][1] - a[0][1] * a[1][0]]),
    "reflect": (2, False, True, lambda a, dt: [ik - dt(2) * _dot(a[1], a[0]) * nk for ik, nk in zip(a[0], a[1])]),
    "refract": (2, True, True, lambda a, dt: _refract(a[0], a[1], a[2], dt)),
    "faceforward": (3, False, True, lambda a, dt: [np.where(_dot(a[2], a[1]) < 0, c, -c) for c in a[0]]),
}


# Magnitude of the terms that are rounded and then cancel (i - 2 dot(n,i) n, eta i - (...) n): a
# different but equally valid evaluation order may differ by a few roundings at this scale.
GEO_SCALE = {
    "reflect": lambda a: [np.maximum(np.abs(ik), np.abs(2 * _dot(a[1], a[0]) * nk)) for ik, nk in zip(a[0], a[1])],
    "refract": lambda a: [np.maximum(np.abs(a[2] * ik), np.abs((a[2] * _dot(a[1], a[0]) + 1) * nk)) for ik, nk in zip(a[0], a[1])],
}


def geometric_cases(rng):
    cases = []
    n = 4096
    for tname in ("float", "half"):
        fmt = FMTS[tname]
        dt = np.float32 if fmt is FLOAT else np.float16
        for w in (2, 3, 4):
            for name, (nv, eta, vres, formula) in GEO.items():
                if name == "cross" and w != 3:
                    continue
                scale = 100.0 if fmt is FLOAT else 8.0
                vecs = []
                for v in range(nv):
                    comps = [fp.round64(rng.uniform(-scale, scale, n), fmt) for _ in range(w)]
                    if name in ("refract", "reflect"):      # unit vectors, as the spec expects
                        l = np.sqrt(sum(c * c for c in comps))
                        comps = [fp.round64(c / l, fmt) for c in comps]
                    vecs.append(comps)
                args64 = [list(v) for v in vecs]
                if eta:
                    e = fp.round64(rng.uniform(0.5, 1.6, n), fmt)
                    args64.append(e)
                ref = formula([[np.asarray(c, np.float64) for c in v] if isinstance(v, list) else v for v in args64], np.float64)
                with np.errstate(all="ignore"):
                    fT = formula([[c.astype(dt) for c in v] if isinstance(v, list) else v.astype(dt) for v in args64], dt)
                refs = ref if vres else [ref]
                fTs = [np.asarray(x, np.float64) for x in (fT if vres else [fT])]
                a64 = [[np.asarray(c, np.float64) for c in v] if isinstance(v, list) else v for v in args64]
                scales = GEO_SCALE[name](a64) if name in GEO_SCALE else [np.zeros(n)] * len(fTs)
                skip = None
                if name == "refract":     # near the critical angle (k ~ 0) the result is ill-conditioned
                    d = _dot(a64[1], a64[0])
                    kk = 1 - a64[2] ** 2 * (1 - d * d)
                    skip = (lambda m: (lambda xs: m[:len(xs[0])]))(np.abs(kk) < 0.2)
                flat = [c for v in vecs for c in v] + ([args64[-1]] if eta else [])
                argt = [tname] * len(flat)
                decl = []
                k = 0
                for v in range(nv):
                    decl.append(f"{tname}{w} v{v} = {tname}{w}({', '.join(f'a{k + j}' for j in range(w))});")
                    k += w
                call_args = [f"v{v}" for v in range(nv)] + ([f"a{k}"] if eta else [])
                nss = ("metal", "precise", "fast") if name in T.GEOMETRIC_FASTPRECISE and tname == "float" else ("metal",)
                for ns in nss:
                    prefix = {"metal": "metal::", "precise": "metal::precise::", "fast": "metal::fast::"}[ns]
                    nout = w if vres else 1
                    body = " ".join(decl) + f" auto R = {prefix}{name}({', '.join(call_args)}); " + \
                        (" ".join(f"r{j} = R[{j}];" for j in range(w)) if vres else "r0 = R;")
                    bounds = [T.Bound("ulpfn", 0, T.T611, (lambda fr, sc: (lambda xs, rf, fm: fp.ulp_error(fr, rf, fm) + 1 +
                                      4 * fp.ulp(sc, fm) / fp.ulp(rf, fm)))(fr, sc), "formula in T (+1 ulp)")
                              for fr, sc in zip(fTs, scales)]
                    chk = float_check(fmt, [(lambda r: (lambda *xs: r))(r) for r in refs], bounds, fast=(ns == "fast"),
                                      zero_sign=False, skip=skip)
                    cases.append(Case("geometric", name, f"{tname}{w}", ns, argt, [tname] * nout, body,
                                      [fp.encode(c, fmt) for c in flat], chk,
                                      f"within the formula's own error in {tname} +1 ulp [{T.T611}, no ULP row]"))
    return cases


# ---------------------------------------------------------------- kernels
def align(n, a=16):
    return (n + a - 1) // a * a


def sizeof(ctype):
    return np.dtype(CTYPE_NP[ctype]).itemsize


def build_group(cases, N):
    """Source of one kernel running all cases, and the input blob. Returns (src, blob, out_size,
    layout, case_lines) where layout[c] = (output offsets) and case_lines[c] = (first, last)."""
    blob = bytearray()
    out_size = 0
    layout = []
    lines = ["#include <metal_stdlib>", "using namespace metal;",
             "kernel void conformance(device const uchar* in [[buffer(0)]], device uchar* out [[buffer(1)]],",
             "                        uint gid [[thread_position_in_grid]]) {",
             f"  const uint c = gid / {N}u, i = gid % {N}u;", "  switch (c) {"]
    case_lines = []
    for ci, c in enumerate(cases):
        first = len(lines) + 1
        decl = []
        for k, (ct, arr) in enumerate(zip(c.args, c.inputs)):
            a = np.resize(np.ascontiguousarray(arr).astype(CTYPE_NP[ct]), N)
            off = align(len(blob))
            blob += b"\0" * (off - len(blob))
            blob += a.tobytes()
            decl.append(f"#define OFF{k} {off}u")
        offs = []
        for ct in c.outs:
            off = align(out_size)
            offs.append(off)
            out_size = off + N * sizeof(ct)
        layout.append(offs)
        lines += decl
        lines.append(f"  case {ci}: {{")
        if c.vec:
            for k, ct in enumerate(c.args):
                lines.append(f"#define A{k}(j) {load_expr(ct, k, f'((i + (j)) % {c.n}u)')}")
        else:
            for k, ct in enumerate(c.args):
                lines.append(f"    {ct} a{k} = {load_expr(ct, k)};")
        for k, ct in enumerate(c.outs):
            lines.append(f"    {ct} r{k};")
        lines.append(f"    {c.body}")
        for k, ct in enumerate(c.outs):
            st = "uchar" if ct == "bool" else ct
            lines.append(f"    ((device {st}*)(out + {offs[k]}u))[i] = {st}(r{k});")
        lines.append("  } break;")
        for k in range(len(c.args)):
            lines.append(f"#undef OFF{k}")
            if c.vec:
                lines.append(f"#undef A{k}")
        case_lines.append((first, len(lines)))
    lines += ["  default: break;", "  }", "}"]
    return "\n".join(lines) + "\n", bytes(blob), out_size, layout, case_lines


def run_group(mslsim, name, cases, tmp, log):
    """Runs the cases; returns {case index: outputs list} and {case index: compile error}."""
    errors = {}
    live = list(range(len(cases)))
    N = max(c.n for c in cases)
    for attempt in range(6):
        if not live:
            return {}, errors
        sub = [cases[i] for i in live]
        src, blob, out_size, layout, case_lines = build_group(sub, N)
        path = os.path.join(tmp, f"{name}.metal")
        with open(path, "w") as f:
            f.write(src)
        inp = os.path.join(tmp, f"{name}.in.npy")
        np.save(inp, np.frombuffer(blob if blob else b"\0" * 16, np.uint8))
        outp = os.path.join(tmp, f"{name}.out.npy")
        cmd = [mslsim, "run", path, "--kernel", "conformance", "--grid", str(N * len(sub)), "--threadgroup", "256",
               "--buffer", f"0={inp}", "--buffer", f"1=zeros:uint8:{max(out_size, 16)}", "--output", f"1={outp}",
               "--check", "none"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            raw = np.load(outp).tobytes()
            res = {}
            for ci, c in zip(live, sub):
                offs = layout[sub.index(c)]
                outs = []
                for k, ct in enumerate(c.outs):
                    dt = CTYPE_NP[ct]
                    a = np.frombuffer(raw, dtype=dt, count=N, offset=offs[k])
                    if ct in FMTS:
                        a = fp.decode(a, FMTS[ct])
                    outs.append(a)
                res[ci] = outs
            return res, errors
        # map compile errors to cases and drop them
        first_error = next((l for l in r.stderr.splitlines() if ": error: " in l), r.stderr.strip()[:300])
        msgs = [(line, first_error if kind == "note" else msg) for line, kind, msg in
                re.findall(re.escape(os.path.basename(path)) + r":(\d+):\d+: (error|note): (.*)", r.stderr)]
        if not msgs:
            for i in live:
                errors[i] = f"mslsim exit {r.returncode}: {r.stderr.strip()[:500]}"
            return {}, errors
        dropped = False
        for line, msg in msgs:
            line = int(line)
            for j, (a, b) in enumerate(case_lines):
                if a <= line <= b and live[j] not in errors:
                    errors[live[j]] = msg
                    dropped = True
        if not dropped:
            for i in live:
                errors[i] = f"mslsim: {r.stderr.strip()[:500]}"
            return {}, errors
        live = [i for i in live if i not in errors]
    return {}, errors


# ---------------------------------------------------------------- driver
AREAS = ["math", "common", "integer", "relational", "geometric", "conversion"]


def collect(area, rng):
    if area == "math":
        return math_cases(rng)
    if area == "integer":
        return integer_cases(rng)
    if area == "common":
        return common_cases(rng)
    if area == "geometric":
        return geometric_cases(rng)
    if area == "relational":
        return relational_cases(rng)
    if area == "conversion":
        return conversion_cases(rng)
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mslsim")
    ap.add_argument("--area", action="append", choices=AREAS)
    ap.add_argument("--filter", default="")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--keep", help="write the generated kernels here")
    opt = ap.parse_args()
    np.seterr(all="ignore")     # NaN/inf inputs are the point of the sweeps
    t0 = time.time()
    tmp = opt.keep or tempfile.mkdtemp(prefix="mslsim-conformance-")
    os.makedirs(tmp, exist_ok=True)
    problems = []
    summary = []
    for area in opt.area or AREAS:
        rng = np.random.default_rng(RNG_SEED)
        cases = [c for c in collect(area, rng) if opt.filter in c.key]
        # one kernel per (type, size) group
        groups = {}      # one kernel per type and size class (cases are padded to the largest)
        for c in cases:
            groups.setdefault((c.type, 0 if c.n <= 10000 else 1 if c.n <= 30000 else 2), []).append(c)
        results = {}
        for gi, ((tname, n), gcases) in enumerate(sorted(groups.items())):
            outs, errors = run_group(opt.mslsim, f"{area}_{tname}_{n}", gcases, tmp, None)
            for i, c in enumerate(gcases):
                if i in errors:
                    results[c.key] = (c, None, errors[i])
                else:
                    with np.errstate(all="ignore"):
                        results[c.key] = (c, c.check(c.inputs_decoded(), outs[i], c.n), None)
        summary.append(report(area, results, problems, opt.verbose))
    print()
    nfunc = sum(s[0] for s in summary)
    ncases = sum(s[1] for s in summary)
    nchecks = sum(s[2] for s in summary)
    for area, s in zip(opt.area or AREAS, summary):
        print(f"{area:11s} {s[0]:4d} functions {s[1]:5d} cases {s[2]:9d} values checked")
    print(f"{'total':11s} {nfunc:4d} functions {ncases:5d} cases {nchecks:9d} values checked "
          f"({time.time() - t0:.1f} s)")
    return sweep.finish(problems)


def report(area, results, problems, verbose):
    funcs = {}
    for key, (c, r, err) in results.items():
        funcs.setdefault(c.func, []).append((c, r, err))
    nchecks = 0
    print(f"== {area}")
    for fname in sorted(funcs):
        rows = funcs[fname]
        worst = 0.0
        statuses = []
        for c, r, err in rows:
            if err is not None:
                status = "XFAIL" if c.xfail else "COMPILE-ERROR"
                if not c.xfail:
                    problems.append(f"{c.key}: does not compile: {err}")
            else:
                nchecks += r["checked"]
                worst = max(worst, r["max_ulp"])
                failed = r["failed"] > 0 or r["checked"] == 0
                if c.xfail:
                    status = "XFAIL" if failed else "XPASS"
                    if not failed:
                        problems.append(f"{c.key}: marked as a known failure ({c.xfail}) but passes")
                else:
                    status = "FAIL" if failed else "ok"
                    if failed:
                        why = "; ".join(r["detail"][:3]) if r["checked"] else "nothing checked"
                        problems.append(f"{c.key}: {r['failed']}/{r['checked']} outside {c.bound}: {why}")
            statuses.append(status)
            if verbose or status not in ("ok",):
                extra = f" ({c.xfail})" if c.xfail else ""
                if r is not None:
                    print(f"  {status:13s} {c.key:42s} {r['checked']:7d} values  max {r['max_ulp']:9.3g} ulp  "
                          f"bound {c.bound}{extra}")
                else:
                    print(f"  {status:13s} {c.key:42s} {err}{extra}")
        nok = statuses.count("ok")
        print(f"  {fname:16s} {len(rows):3d} cases, {nok:3d} ok, max error {worst:.3g} ulp")
    return len(funcs), len(results), nchecks


if __name__ == "__main__":
    sys.exit(main())
