#!/usr/bin/python3
"""Conformance sweep of the SIMD-group and quad-group functions (msl-inventory.md §3.12, §3.13).

Usage: /usr/bin/python3 tests/conformance/simd.py PATH_TO_MSLSIM [--filter TEXT] [--types T,...] [--verbose] [--keep DIR]
Exit status 1 on any failure, an XFAIL that passes, a kernel that does not compile, or a finding of
the checked run.

The table (FUNCS) lists each function; for every element type (TYPES) one kernel holds every function
twice, called by all threads (code 2k) and inside `if (act[gid])` (code 2k+1). Every threadgroup of
the dispatch is one variant: a code plus its uniform arguments (delta, mask, lane, modulo) from a
parameter buffer. Threadgroups have 77 threads, so each one has two full SIMD-groups (lanes 0-31 and
32-63) and a partial last SIMD-group of 13 lanes (its last quad has one lane). Participation patterns:
  full       SIMD-groups 0 and 1 of a threadgroup running the uniform code
  partial    SIMD-group 2 (13 lanes) of the same
  divergent  the if-code, `act` true on lane % 3 != 0 (always) and on one more mask per variant
             (random, a contiguous range, one lane, all but lane 0); in all three SIMD-groups.
The reference is computed here from the lane values (numpy / Python integers), over the active lanes
only (MSL4 §6.9.2: a thread may only read from active threads). A result that reads an inactive lane
(a shuffle whose source lane is inactive or past the end of a partial SIMD-group) is undefined and is
not compared. Lanes that do not call the function are checked to leave their output untouched.

Exactness: integer results exact (wrap-around in the element type). Floating-point reductions and
prefix operations: mslsim combines the active lanes of sums and products pairwise (lanes 0-15 with
16-31, each half the same way down to pairs; an inactive lane counts as the identity), of prefix
sums and products in the order of a scan of shuffles (Kogge-Stone: at level d = 1, 2, 4, ... each
lane combines the lane d below with its own) and of the other functions in lane order 0..31
(simd.h), and the reference does the same, rounding after every operation to the element type (float32, float16, bfloat16), so
results are compared exactly (bit patterns, sign of zero included). Inputs avoid NaN and zero (min/max
of NaN/±0 are not specified beyond metal::min/max) and products use values near 1 so nothing
overflows (signed overflow would be undefined in the C++ the simulator runs).

Each kernel runs with `--check none` (values compared), where a SIMD-group's lanes run as vector
lanes (the run must say so), again with `--simd-lanes threads` (every thread on its own: the same
bytes), and with the default checks (bounds,sync), which must report nothing, run as vector lanes too
and write the same bytes. A fourth run with `--check simd` must report only
simd-divergence warnings (only on if-code lines) and simd-inactive-lane errors only on lines where
the reference found reads of inactive lanes.
"""
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fp  # noqa: E402
import sweep  # noqa: E402
from fp import BFLOAT, FLOAT, HALF  # noqa: E402

RNG_SEED = 20240607
TG = 77                     # threads per threadgroup: SIMD-groups of 32, 32, 13
SW = 4                      # buffer slots per thread (the widest vector)

# element type -> (scalar, width)
SCALAR = {
    # name: (kind, numpy storage dtype, bits, signed, fmt)
    "float": ("f", np.float32, 32, True, FLOAT), "half": ("f", np.float16, 16, True, HALF),
    "bfloat": ("f", np.uint16, 16, True, BFLOAT),
    "int": ("i", np.int32, 32, True, None), "uint": ("i", np.uint32, 32, False, None),
    "short": ("i", np.int16, 16, True, None), "ushort": ("i", np.uint16, 16, False, None),
    "char": ("i", np.int8, 8, True, None), "uchar": ("i", np.uint8, 8, False, None),
}
TYPES = [("float", 1), ("half", 1), ("bfloat", 1), ("int", 1), ("uint", 1), ("short", 1), ("ushort", 1),
         ("char", 1), ("uchar", 1), ("float4", 4), ("half2", 2), ("int2", 2), ("uint2", 2), ("short4", 4),
         ("uchar3", 3)]

# ---------------------------------------------------------------- the table
# kind: red (reduction, op), pre (prefix), idx (per-thread lane), bc (uniform lane), first,
# up/down/xor/rup/rdown (uniform delta or mask), fillup/filldown (delta), fillupm/filldownm (delta, modulo)
FUNCS = []
for P, G in (("simd_", 32), ("quad_", 4)):
    for op in ("sum", "product", "min", "max", "and", "or", "xor"):
        FUNCS.append(dict(name=P + op, G=G, kind="red", op=op, call=f"{P}{op}(v)"))
    for inc in ("inclusive", "exclusive"):
        for op in ("sum", "product"):
            FUNCS.append(dict(name=f"{P}prefix_{inc}_{op}", G=G, kind="pre", op=op, inc=inc == "inclusive",
                              call=f"{P}prefix_{inc}_{op}(v)"))
    FUNCS.append(dict(name=P + "shuffle", G=G, kind="idx", call=f"{P}shuffle(v, sl)", args=[(0, 0)]))
    FUNCS.append(dict(name=P + "broadcast", G=G, kind="bc", call=f"{P}broadcast(v, ushort(a))",
                      args=[(l, 0) for l in ((0, 7, 12, 31) if G == 32 else (0, 1, 2, 3))]))
    FUNCS.append(dict(name=P + "broadcast_first", G=G, kind="first", call=f"{P}broadcast_first(v)"))
    deltas = (0, 1, 5, 16, 31) if G == 32 else (0, 1, 2, 3)
    for k, fn in (("up", "shuffle_up"), ("down", "shuffle_down"), ("rup", "shuffle_rotate_up"),
                  ("rdown", "shuffle_rotate_down")):
        FUNCS.append(dict(name=P + fn, G=G, kind=k, call=f"{P}{fn}(v, ushort(a))", args=[(d, 0) for d in deltas]))
    FUNCS.append(dict(name=P + "shuffle_xor", G=G, kind="xor", call=f"{P}shuffle_xor(v, ushort(a))",
                      args=[(m, 0) for m in ((1, 2, 4, 8, 16, 31, 5) if G == 32 else (1, 2, 3))]))
    for k, fn in (("fillup", "shuffle_and_fill_up"), ("filldown", "shuffle_and_fill_down")):
        FUNCS.append(dict(name=P + fn, G=G, kind=k, call=f"{P}{fn}(v, w, ushort(a))",
                          args=[(d, 0) for d in deltas]))
        mods = (2, 4, 8, 16, 32) if G == 32 else (2, 4)
        FUNCS.append(dict(name=P + fn + "(modulo)", G=G, kind=k + "m", call=f"{P}{fn}(v, w, ushort(a), ushort(b))",
                          args=[(d, m) for m in mods for d in sorted({1, m // 2, m - 1})]))
# Functions of bool / no argument: one kernel ("bool"), results as ulong.
BFUNCS = []
for P, G in (("simd_", 32), ("quad_", 4)):
    V = "simd_vote" if G == 32 else "quad_vote"
    BFUNCS += [
        dict(name=P + "ballot", G=G, kind="ballot", call=f"ulong({V}::vote_t({P}ballot(p)))"),
        dict(name=P + "ballot().all", G=G, kind="vall", call=f"ulong({P}ballot(p).all())"),
        dict(name=P + "ballot().any", G=G, kind="vany", call=f"ulong({P}ballot(p).any())"),
        dict(name=P + "vote(bits)", G=G, kind="vote", call=f"ulong({V}({V}::vote_t(a)).all()) | (ulong({V}({V}::vote_t(a)).any()) << 1) | (ulong({V}::vote_t({V}({V}::vote_t(a)))) << 2)"),
        dict(name=P + "all", G=G, kind="all", call=f"ulong({P}all(p))"),
        dict(name=P + "any", G=G, kind="any", call=f"ulong({P}any(p))"),
        dict(name=P + "is_first", G=G, kind="isfirst", call=f"ulong({P}is_first())"),
        dict(name=P + "active_threads_mask", G=G, kind="atm",
             call=f"ulong({V}::vote_t({P}active_threads_mask()))"),
    ]
for f in FUNCS + BFUNCS:
    f.setdefault("args", [(0, 0)])

BITWISE = ("and", "or", "xor")
# Known failures: (function name, type) -> reason. The runner reports them as XFAIL.
XFAIL = {}


def applies(f, tname):
    scal = tname.rstrip("1234")
    return not (f["kind"] in ("red", "pre") and f["op"] in BITWISE and SCALAR[scal][0] == "f")


# ---------------------------------------------------------------- arithmetic of one element type
class Arith:
    def __init__(self, scal):
        self.kind, self.dt, self.bits, self.signed, self.fmt = SCALAR[scal]
        self.scal = scal

    def wrap(self, x):
        x &= (1 << self.bits) - 1
        if self.signed and x >> (self.bits - 1):
            x -= 1 << self.bits
        return x

    def rnd(self, x):
        if self.fmt is FLOAT:
            return float(np.float32(x))
        if self.fmt is HALF:
            return float(np.float16(x))
        return float(fp.round64(np.array([x]), BFLOAT)[0])

    def op(self, name, a, b):
        if self.kind == "f":    # a + b, a * b of two values of the format are exact in float64
            if name == "sum":
                return self.rnd(a + b)
            if name == "product":
                return self.rnd(a * b)
            return min(a, b) if name == "min" else max(a, b)
        if name == "sum":
            return self.wrap(a + b)
        if name == "product":
            return self.wrap(a * b)
        return {"min": min, "max": max, "and": lambda p, q: p & q, "or": lambda p, q: p | q,
                "xor": lambda p, q: p ^ q}[name](a, b)

    def values(self, rng, n, dom):
        """n values of the type (float64 or Python-int-valued int64) for a function domain."""
        if self.kind == "f":
            if dom == "product":
                v = rng.uniform(0.75, 1.33, n) * rng.choice([-1.0, 1.0], n)
            else:
                v = np.exp2(rng.uniform(-8, 5, n)) * rng.choice([-1.0, 1.0], n)
            v = fp.round64(v, self.fmt)
            v[v == 0] = 1.0
            return v
        lo, hi = (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1) if self.signed else (0, (1 << self.bits) - 1)
        if dom == "product" and self.scal in ("int", "ushort"):
            # int: |product| < 2^31; ushort: ushort*ushort is computed in int (no overflow below 2^15)
            v = rng.choice([1, -1, 1, -1, 1, 2, -2, 3], n) if self.signed else rng.integers(1, 256, n)
            if self.signed:
                big = np.abs(v) > 1
                v[np.cumsum(big) > 12] = 1
            return v.astype(np.int64)
        if dom == "sum" and self.scal == "int":
            lo, hi = -(1 << 25), 1 << 25
        return rng.integers(lo, hi, n, endpoint=True).astype(np.int64)

    def encode(self, v):
        if self.kind == "f":
            return fp.encode(v, self.fmt)
        return np.asarray(v).astype(self.dt)

    def decode(self, a):
        if self.kind == "f":
            return fp.decode(a, self.fmt)
        return np.asarray(a).astype(np.int64)


# ---------------------------------------------------------------- reference
def ref_group(f, A, vals, fills, sls, pred, active, a, b):
    """One SIMD-group. vals/fills: lists (32) of tuples of components; active: 32 bools (lanes that
    exist and call the function). Returns {lane: result tuple, or None when undefined}."""
    G = f["G"]
    kind = f["kind"]
    out = {}
    for base in range(0, 32, G):
        lanes = [l for l in range(base, base + G) if active[l]]
        if not lanes:
            continue
        W = len(vals[lanes[0]])

        def get(l):
            return vals[l] if 0 <= l < 32 and active[l] else None

        if kind == "red" and f["op"] in ("sum", "product"):
            # Pairwise: lanes [b, b + n) as the first half's result with the second half's, an
            # inactive lane contributing the identity (-0.0 leaves every float sum as it is).
            ident = (-0.0 if A.kind == "f" else 0) if f["op"] == "sum" else 1

            def pairwise(b, n):
                if n == 1:
                    return vals[b] if active[b] else (ident,) * W
                return tuple(A.op(f["op"], x, y) for x, y in zip(pairwise(b, n // 2), pairwise(b + n // 2, n // 2)))

            acc = pairwise(base, G)
            for l in lanes:
                out[l] = acc
        elif kind == "red":
            acc = vals[lanes[0]]
            for l in lanes[1:]:
                acc = tuple(A.op(f["op"], x, y) for x, y in zip(acc, vals[l]))
            for l in lanes:
                out[l] = acc
        elif kind == "pre":
            # Kogge-Stone: at each level d = 1, 2, 4, ... (below G) a lane at position >= d in its
            # group combines the value of the lane d below (left operand) with its own; an inactive
            # lane starts as the identity. The exclusive form takes the lane below's inclusive
            # result, or `empty` (0 or 1) when no active lane of its group comes before it.
            ident = (-0.0 if A.kind == "f" else 0) if f["op"] == "sum" else 1
            empty = (0 if f["op"] == "sum" else 1,) * W
            level = [vals[l] if active[l] else (ident,) * W for l in range(base, base + G)]
            d = 1
            while d < G:
                level = [tuple(A.op(f["op"], x, y) for x, y in zip(level[j - d], level[j])) if j >= d else level[j]
                         for j in range(G)]
                d *= 2
            for l in lanes:
                j = l - base
                if f["inc"]:
                    out[l] = level[j]
                else:
                    out[l] = level[j - 1] if any(active[base + i] for i in range(j)) else empty
        elif kind == "first":
            for l in lanes:
                out[l] = vals[lanes[0]]
        elif kind in ("ballot", "vall", "vany", "all", "any", "atm", "isfirst", "vote"):
            bits = sum(1 << (l - base) for l in lanes if pred[l])
            act = sum(1 << (l - base) for l in lanes)
            full = (1 << G) - 1
            r = {"ballot": bits, "vall": int(bits == full), "vany": int(bits != 0),
                 "all": int(bits == act), "any": int(bits != 0), "atm": act}.get(kind)
            for l in lanes:
                if kind == "isfirst":
                    out[l] = (int(l == lanes[0]),)
                elif kind == "vote":
                    out[l] = (0,)   # computed by the caller from the argument
                else:
                    out[l] = (r,)
        else:
            for l in lanes:
                j = l - base
                if kind == "idx":
                    r = get(base + sls[l])
                elif kind == "bc":
                    r = get(base + a)
                elif kind == "up":
                    r = vals[l] if j < a else get(l - a)
                elif kind == "down":
                    r = vals[l] if j + a >= G else get(l + a)
                elif kind == "xor":
                    r = get(base + (j ^ a)) if (j ^ a) < G else vals[l]
                elif kind == "rup":
                    r = get(base + (j - a) % G)
                elif kind == "rdown":
                    r = get(base + (j + a) % G)
                else:
                    m = b if kind.endswith("m") else G
                    seg, k = base + j - j % m, j % m
                    if kind.startswith("fillup"):
                        src, use_x = (seg + k - a, True) if k >= a else (seg + k + m - a, False)
                    else:
                        src, use_x = (seg + k + a, True) if k + a < m else (seg + k + a - m, False)
                    r = (vals if use_x else fills)[src] if active[src] else None
                out[l] = r
    return out


# ---------------------------------------------------------------- variants
def masks(rng):
    lane = np.arange(TG) % 32
    return {
        "lane%3!=0": lane % 3 != 0,
        "random": rng.random(TG) < 0.5,
        "lanes 3..20": (lane >= 3) & (lane <= 20),
        "one lane": lane == rng.integers(0, 13),
        "all but lane 0": lane != 0,
    }


class Variant:
    """One threadgroup: function f, code, args (a, b), participation (uniform or a mask)."""

    def __init__(self, f, code, a, b, mask_name, act):
        self.f, self.code, self.a, self.b, self.mask_name, self.act = f, code, a, b, mask_name, act


def make_variants(funcs, rng):
    out = []
    extra = ["random", "lanes 3..20", "one lane", "all but lane 0"]
    n = 0
    for k, f in enumerate(funcs):
        for (a, b) in f["args"]:
            ms = masks(rng)
            out.append(Variant(f, 2 * k, a, b, None, np.ones(TG, bool)))
            out.append(Variant(f, 2 * k + 1, a, b, "lane%3!=0", ms["lane%3!=0"]))
            m = extra[n % len(extra)]
            n += 1
            out.append(Variant(f, 2 * k + 1, a, b, m, ms[m]))
    return out


# ---------------------------------------------------------------- kernels
def kernel_source(tname, funcs):
    scal = tname.rstrip("1234")
    W = int(tname[len(scal):] or 1)
    is_bool = tname == "bool"
    S = "ulong" if is_bool else scal
    if is_bool:
        load = ""
    elif W == 1:
        load = f"  const {S} v = x[{SW}u * gid], w = y[{SW}u * gid];\n"
    else:
        comps = lambda buf: ", ".join(f"{buf}[{SW}u * gid + {k}u]" for k in range(W))
        load = f"  const {tname} v = {tname}({comps('x')}), w = {tname}({comps('y')});\n"
    store = "out[gid] = r;" if is_bool or W == 1 else " ".join(f"out[{SW}u * gid + {k}u] = r[{k}];" for k in range(W))
    if not is_bool and W == 1:
        store = f"out[{SW}u * gid] = r;"
    R = "ulong" if is_bool else tname
    lines = ["#include <metal_stdlib>", "using namespace metal;",
             f"kernel void simd_conf(device const {S}* x [[buffer(0)]], device const {S}* y [[buffer(1)]],",
             "                      device const ushort* sls [[buffer(2)]], device const uchar* act [[buffer(3)]],",
             f"                      device const uint* prm [[buffer(4)]], device {S}* out [[buffer(5)]],",
             "                      device const uchar* pr [[buffer(6)]],",
             "                      uint tg [[threadgroup_position_in_grid]], uint gid [[thread_position_in_grid]]) {",
             "  const uint code = prm[4u * tg], a = prm[4u * tg + 1u], b = prm[4u * tg + 2u];",
             "  const ushort sl = sls[gid];", "  const bool p = pr[gid] != 0;", load.rstrip("\n"),
             "  (void)a; (void)b; (void)sl; (void)p;", "  switch (code) {"]
    lines = [l for l in lines if l]
    line_of = {}
    for k, f in enumerate(funcs):
        line_of[2 * k] = len(lines) + 1
        lines.append(f"  case {2 * k}u: {{ const {R} r = {f['call']}; {store} }} break;")
        line_of[2 * k + 1] = len(lines) + 1
        lines.append(f"  case {2 * k + 1}u: if (act[gid]) {{ const {R} r = {f['call']}; {store} }} break;")
    lines += ["  default: break;", "  }", "}"]
    return "\n".join(lines) + "\n", line_of


SENTINEL = 0x5a


def run_type(mslsim, tname, funcs, rng, tmp, opt, part=""):
    """Returns (rows, problems): rows = list of (func name, pattern, checked, failed, detail).
    `part` tells apart the files of the kernels one type's functions are split into."""
    is_bool = tname == "bool"
    scal = tname.rstrip("1234")
    W = 1 if is_bool else int(tname[len(scal):] or 1)
    A = None if is_bool else Arith(scal)
    variants = make_variants(funcs, rng)
    nt = len(variants) * TG
    # inputs
    if is_bool:
        x = np.zeros(nt * SW, np.uint64)
        y = x
    else:
        xv = np.zeros((nt, SW)) if A.kind == "f" else np.zeros((nt, SW), np.int64)
        yv = xv.copy()
        for t, v in enumerate(variants):
            dom = v.f.get("op", "")
            xv[t * TG:(t + 1) * TG, :W] = A.values(rng, TG * W, dom).reshape(TG, W)
            yv[t * TG:(t + 1) * TG, :W] = A.values(rng, TG * W, "").reshape(TG, W)
        x, y = A.encode(xv.ravel()), A.encode(yv.ravel())
    sls = np.zeros(nt, np.uint16)
    act = np.zeros(nt, np.uint8)
    prm = np.zeros(len(variants) * 4, np.uint32)
    pred = np.zeros(nt, np.uint8)
    for t, v in enumerate(variants):
        s = slice(t * TG, (t + 1) * TG)
        sls[s] = rng.integers(0, v.f["G"], TG)
        act[s] = v.act
        if v.f["kind"] == "vote":    # the bits of a simd_vote / quad_vote built from a value
            v.a = [0, 0xffffffff, 0xf, 0xfffffffe, 0x7, int(rng.integers(0, 2 ** 32))][t % 6]
        prm[4 * t:4 * t + 3] = (v.code, v.a, v.b)
        # predicates: per SIMD-group one of several shapes
        lane = np.arange(TG)
        pv = np.zeros(TG, bool)
        for g in range(3):
            gs = slice(32 * g, min(32 * g + 32, TG))
            n = gs.stop - gs.start
            mode = (t + g) % 6
            pv[gs] = [np.ones(n, bool), np.zeros(n, bool), rng.random(n) < 0.5, rng.random(n) < 0.9,
                      lane[gs] == gs.start + rng.integers(0, n), v.act[gs]][mode]
        pred[s] = pv
    src, line_of = kernel_source(tname, funcs)
    path = os.path.join(tmp, f"simd_{tname}{part}.metal")
    with open(path, "w") as fh:
        fh.write(src)
    files = {}
    for k, arr in (("x", x), ("y", y), ("sls", sls), ("act", act), ("prm", prm), ("pred", pred)):
        files[k] = os.path.join(tmp, f"simd_{tname}{part}.{k}.npy")
        np.save(files[k], arr)
    store_dt = np.uint64 if is_bool else A.dt
    outbytes = (nt if is_bool else nt * SW) * np.dtype(store_dt).itemsize
    outp = os.path.join(tmp, f"simd_{tname}{part}.out.npy")
    files["out0"] = os.path.join(tmp, f"simd_{tname}{part}.out0.npy")
    np.save(files["out0"], np.frombuffer(bytes([SENTINEL]) * outbytes, store_dt))
    base = [mslsim, "run", path, "--kernel", "simd_conf", "--grid", str(nt), "--threadgroup", str(TG),
            "--buffer", f"0={files['x']}", "--buffer", f"1={files['y']}", "--buffer", f"2={files['sls']}",
            "--buffer", f"3={files['act']}", "--buffer", f"4={files['prm']}",
            "--buffer", f"5={files['out0']}", "--buffer", f"6={files['pred']}"]
    problems = []
    r = subprocess.run(base + ["--output", f"5={outp}", "--check", "none", "--timing"], capture_output=True, text=True)
    if r.returncode != 0:
        return {}, [f"{tname}: mslsim --check none exit {r.returncode}: {r.stderr.strip()[:2000]}"], {}
    raw = np.load(outp).tobytes()
    # Both execution paths: the unchecked run above takes the vector lanes (a SIMD-group's lanes
    # as vector lanes); every thread on its own must write the same bytes.
    if 'path="vector lanes"' not in r.stderr:
        problems.append(f"{tname}: --check none did not run as vector lanes: {r.stderr.strip()[-300:]}")
    outp_threads = os.path.join(tmp, f"simd_{tname}{part}.out.threads.npy")
    rt = subprocess.run(base + ["--output", f"5={outp_threads}", "--check", "none", "--simd-lanes", "threads"],
                        capture_output=True, text=True)
    if rt.returncode != 0:
        problems.append(f"{tname}: --simd-lanes threads: exit {rt.returncode}: {rt.stderr.strip()[:1000]}")
    else:
        threads_raw = np.load(outp_threads).tobytes()
        if threads_raw != raw:
            differ = int((np.frombuffer(threads_raw, np.uint8) != np.frombuffer(raw, np.uint8)).sum())
            problems.append(f"{tname}: vector lanes and threads one by one differ in {differ} bytes")
    got_raw = np.frombuffer(raw, store_dt)
    got = got_raw.astype(np.uint64) if is_bool else A.decode(got_raw)
    sentinel = np.frombuffer(bytes([SENTINEL]) * np.dtype(store_dt).itemsize, store_dt)[0]
    # checked runs: the default checks also run a SIMD-group's lanes as vector lanes, find nothing
    # and write the same bytes
    outp_checked = os.path.join(tmp, f"simd_{tname}{part}.out.checked.npy")
    r2 = subprocess.run(base + ["--output", f"5={outp_checked}", "--timing"], capture_output=True, text=True)
    quiet = re.sub(r"^timing: .*\n?", "", r2.stderr, flags=re.M).strip()
    if r2.returncode != 0 or quiet:
        problems.append(f"{tname}: default checks: exit {r2.returncode}: {r2.stderr.strip()[:1000]}")
    else:
        if 'path="vector lanes"' not in r2.stderr:
            problems.append(f"{tname}: the default checks did not run as vector lanes: {r2.stderr.strip()[-300:]}")
        if np.load(outp_checked).tobytes() != raw:
            problems.append(f"{tname}: the default checks and --check none differ")
    rep = os.path.join(tmp, f"simd_{tname}{part}.simd.json")
    r3 = subprocess.run(base + ["--check", "simd", "--report-json", rep, "--error-exitcode", "0"],
                        capture_output=True, text=True)
    simd_findings = []
    if r3.returncode != 0 or not os.path.exists(rep):
        problems.append(f"{tname}: --check simd: exit {r3.returncode}: {r3.stderr.strip()[:1000]}")
    else:
        with open(rep) as fh:
            simd_findings = json.load(fh).get("diagnostics", [])
    # compare
    rows = {}
    undefined_lines = set()
    for t, v in enumerate(variants):
        f = v.f
        key = (f["name"], tname)
        for g in range(3):
            lo, hi = t * TG + 32 * g, min(t * TG + 32 * g + 32, (t + 1) * TG)
            n = hi - lo
            active = [l < n and bool(v.act[32 * g + l]) for l in range(32)]
            if is_bool:
                vals = fills = [(0,)] * 32
            else:
                xs = xv[lo:hi, :W]
                ys = yv[lo:hi, :W]
                conv = float if A.kind == "f" else int
                vals = [tuple(conv(c) for c in xs[l]) if l < n else None for l in range(32)]
                fills = [tuple(conv(c) for c in ys[l]) if l < n else None for l in range(32)]
            ref = ref_group(f, A, vals, fills, list(sls[lo:hi]) + [0] * (32 - n),
                            list(pred[lo:hi].astype(bool)) + [False] * (32 - n), active, v.a, v.b)
            pattern = ("full" if g < 2 else "partial") if v.mask_name is None else "divergent"
            row = rows.setdefault((f["name"], pattern), [0, 0, [], key])
            for l in range(n):
                gi = lo + l
                if is_bool:
                    gv = [int(got[gi])]
                else:
                    gv = list(got[gi * SW:gi * SW + W])
                    graw = got_raw[gi * SW:gi * SW + W]
                if l not in ref:     # the lane does not call the function: output untouched
                    untouched = (got_raw[gi] == sentinel) if is_bool else all(c == sentinel for c in graw)
                    row[0] += 1
                    if not untouched:
                        row[1] += 1
                        row[2].append(f"tg {t} lane {32 * g + l}: inactive lane wrote its output")
                    continue
                want = ref[l]
                if want is None:
                    undefined_lines.add(line_of[v.code])
                    continue
                if f["kind"] == "vote":
                    a32 = v.a
                    full = (1 << f["G"]) - 1
                    vt = a32 & (0xffffffffffffffff if f["G"] == 32 else 0xffff)
                    want = ((int(a32 & full == full)) | (int(a32 & full != 0) << 1) | (vt << 2),)
                    gv = [gv[0] & ((1 << 66) - 1)]
                elif f["kind"] in ("ballot", "atm"):
                    gv = [gv[0] & ((1 << f["G"]) - 1)]   # bits beyond the group's width are undefined
                for c, (gc, wc) in enumerate(zip(gv, want)):
                    row[0] += 1
                    if is_bool or A.kind == "i":
                        ok = int(gc) == int(wc)
                    else:
                        ok = gc == wc and np.signbit(gc) == np.signbit(wc)
                    if not ok:
                        row[1] += 1
                        if len(row[2]) < 3:
                            what = f" mask {v.mask_name}" if v.mask_name else ""
                            row[2].append(f"args ({v.a},{v.b}){what} tg {t} lane {32 * g + l}"
                                          f"{f'[{c}]' if W > 1 else ''}: got {gc!r} want {wc!r}")
    # --check simd findings: divergence warnings only on if-lines; inactive reads only where undefined
    if_lines = {line_of[k] for k in line_of if k % 2 == 1}
    for d in simd_findings:
        loc = d.get("location") or {}
        lines = {a.get("line") for a in d.get("accesses", [])} | ({loc.get("line")} if "line" in loc else set())
        lines.discard(None)
        kind = d.get("kind")
        if kind == "simd-divergence" and lines <= if_lines:
            continue
        if kind == "simd-inactive-lane" and lines <= undefined_lines:
            continue
        problems.append(f"{tname}: unexpected --check simd finding {kind} at lines {sorted(lines)}: "
                        f"{d.get('message', '')[:300]}")
    return rows, problems, {"variants": len(variants), "threads": nt, "findings": len(simd_findings)}


FUNCS_PER_KERNEL = 4


def main():
    opt, tmp, t0 = sweep.arguments("simd", "only element types / function names containing TEXT",
                                   types=[t for t, _ in TYPES] + ["bool"])
    rng = np.random.default_rng(RNG_SEED)
    problems = []
    results = {}     # (func, type, pattern) -> [checked, failed, details, xfail]
    for tname, _ in TYPES + [("bool", 1)]:
        funcs = BFUNCS if tname == "bool" else [f for f in FUNCS if applies(f, tname)]
        funcs = [f for f in funcs if opt.filter in f["name"] or opt.filter in tname]
        if opt.types and tname not in opt.types:
            continue
        if not funcs:
            continue
        # A type's functions in kernels of at most FUNCS_PER_KERNEL each: the time to compile one
        # kernel grows faster than its number of calls (a float4 kernel of all 40 functions took
        # more than 10 minutes of machine code on an x86 without AVX-512).
        for part, first in enumerate(range(0, len(funcs), FUNCS_PER_KERNEL)):
            chunk = funcs[first:first + FUNCS_PER_KERNEL]
            rows, probs, info = run_type(opt.mslsim, tname, chunk, rng, tmp, opt, f"_{part}")
            problems += probs
            print(f"-- {tname:7s} {len(chunk):3d} functions {info.get('variants', 0):4d} threadgroups "
                  f"({time.time() - t0:.0f} s)", flush=True)
            for (fname, pattern), (checked, failed, detail, key) in rows.items():
                results[(fname, tname, pattern)] = (checked, failed, detail, XFAIL.get((fname, tname)))
    # report
    funcs = sorted({k[0] for k in results})
    total = 0
    ncases = 0
    for fname in funcs:
        keys = [k for k in results if k[0] == fname]
        nok = 0
        for k in sorted(keys):
            checked, failed, detail, xf = results[k]
            total += checked
            ncases += 1
            status = sweep.judge(problems, f"{fname}/{k[1]}/{k[2]}", checked, failed, detail, xf)
            nok += status == "ok"
            if opt.verbose or status != "ok":
                print(f"  {status:6s} {fname}/{k[1]}/{k[2]:10s} {checked:7d} values {failed:5d} wrong"
                      f"{f' ({xf})' if xf else ''}")
        print(f"  {fname:40s} {len(keys):3d} cases, {nok:3d} ok")
    for pat in ("full", "partial", "divergent"):
        ks = [k for k in results if k[2] == pat]
        print(f"  {pat:10s} {len(ks):5d} cases {sum(results[k][0] for k in ks):8d} values checked")
    print(f"\nsimd: {len(funcs)} functions, {ncases} cases (function x type x pattern), {total} values checked "
          f"({time.time() - t0:.1f} s)")
    return sweep.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
