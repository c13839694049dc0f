#!/usr/bin/python3
"""Conformance sweep of the atomic functions (msl-inventory.md §2.5 atomic types, §3.11 functions).

Usage: /usr/bin/python3 tests/conformance/atomics.py PATH_TO_MSLSIM [--filter TEXT] [--verbose] [--keep DIR]
Exit status 1 on any failure, an XFAIL that passes, a kernel that does not compile, or a finding of
the checked run.

One kernel per element type and spelling (atomic_int and atomic<int>, atomic_uint and atomic<uint>,
atomic_bool and atomic<bool>, atomic_float and atomic<float>, atomic_ulong and atomic<ulong>). Every
thread of the dispatch applies every operation of its type (OPS) once, on `device` memory (a buffer
shared by all threadgroups) and, where the inventory allows the type there, on `threadgroup` memory
(an array of the kernel, initialised with atomic_store_explicit by the threads of the threadgroup).
Each operation has its own few (NA = 3) addresses; thread gid uses address (7 gid + gid / 11) % 3, so
each address is hit by threads of every threadgroup. The dispatch has 5 threadgroups of 64 threads
and a partial last one of 21 (grid 341). All orders are memory_order_relaxed (the only order MSL has
for these functions); atomic_thread_fence is called with seq_cst and relaxed, device and threadgroup
flags and scopes (compiles and runs; nothing is checked beyond that).

Checks, per address (device: over all threads of the grid; threadgroup: over the threads of one
threadgroup, with that threadgroup's initial value), against references computed here from the
operations (Python integers wrapped to the type; floats in float64):
  fetch_add/sub/and/or/xor/min/max  the final value exactly (order-independent ops), and the returned
        old values r_i: multiset {r_i} + {final} == {initial} + {op(r_i, v_i)} (every returned value
        is a state the object went through, and each state is left exactly once)
  fetch_add of 1 ("add1")  the returned values are exactly initial + 0..n-1 (a permutation; the
        initial value is near the top of the type, so the counter wraps)
  exchange  the returned values and the final value form one chain initial -> w_i1 -> w_i2 -> ... ->
        final over all written values w_i (distinct); for bool (two values) the counts of true/false
        among returned + final equal those among initial + written
  compare_exchange_weak  a CAS loop (e = load; while (!cas(&e, e + 1)) {}) by every thread: final =
        initial + n, and the expected values of the successes are exactly initial + 0..n-1 (distinct);
        bool: a CAS-loop toggle, final = initial ^ (n odd), the successes saw initial ceil(n/2) times.
        "casfail": a CAS with a wrong expected value on an address holding C returns false, writes C
        to *expected and leaves C in memory
  store/load  "ls1": the last thread of each threadgroup stores a value, threadgroup_barrier (mem_device
        or mem_threadgroup), every thread of the threadgroup loads it back; "lsN": every thread
        stores its own value, barrier, all load the same value, one of those stored
  atomic_min/max_explicit (ulong, void)  the final value exactly; values over the whole 64-bit range
        (above 2^63 too, so a signed comparison would fail)
Float fetch_add/fetch_sub use multiples of 1/8 in [-8, 8] on initial values that are multiples of
1/8 in [-125, 125]: every partial sum in any order is a multiple of 1/8 of magnitude < 2^21, which
float32 (24-bit significand) represents exactly, so the results do not depend on the order the
threads ran and are compared exactly.

Each kernel runs with `--check none` (values compared, also once with `--schedule reverse`) and
with `--check all`, which must exit 0 with no finding at all: atomic accesses never race.
"""
import collections
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402

RNG_SEED = 20240611
TG = 64
GRID = 5 * TG + 21          # five full threadgroups and a partial last one of 21 threads
NTG = (GRID + TG - 1) // TG
NA = 3                      # addresses per operation

# element type -> (numpy storage dtype, bits, signed, kind, spellings, threadgroup allowed, ops)
INT_OPS = ["add", "add1", "sub", "and", "or", "xor", "min", "max", "xchg", "cas", "casfail", "ls1", "lsN"]
TYPES = {
    "int": (np.int32, 32, True, "i", ["atomic_int", "atomic<int>"], True, INT_OPS),
    "uint": (np.uint32, 32, False, "i", ["atomic_uint", "atomic<uint>"], True, INT_OPS),
    "bool": (np.uint8, 1, False, "b", ["atomic_bool", "atomic<bool>"], True, ["xchg", "cas", "casfail", "ls1", "lsN"]),
    "float": (np.float32, 32, True, "f", ["atomic_float", "atomic<float>"], False,
              ["add", "add1", "sub", "xchg", "cas", "casfail", "ls1", "lsN"]),
    "ulong": (np.uint64, 64, False, "i", ["atomic_ulong", "atomic<ulong>"], False, ["vmin", "vmax"]),
}
FUNC_OF = {"add": "atomic_fetch_add_explicit", "add1": "atomic_fetch_add_explicit", "sub": "atomic_fetch_sub_explicit",
           "and": "atomic_fetch_and_explicit", "or": "atomic_fetch_or_explicit", "xor": "atomic_fetch_xor_explicit",
           "min": "atomic_fetch_min_explicit", "max": "atomic_fetch_max_explicit", "xchg": "atomic_exchange_explicit",
           "cas": "atomic_compare_exchange_weak_explicit", "casfail": "atomic_compare_exchange_weak_explicit",
           "ls1": "atomic_store_explicit+atomic_load_explicit", "lsN": "atomic_store_explicit+atomic_load_explicit",
           "vmin": "atomic_min_explicit", "vmax": "atomic_max_explicit"}
# Known failures: (op, type, space) -> reason. Reported as XFAIL; an XFAIL that passes is an error.
XFAIL = {}


# ---------------------------------------------------------------- arithmetic of one type
class Arith:
    def __init__(self, tname):
        self.t = tname
        self.dt, self.bits, self.signed, self.kind = TYPES[tname][:4]

    def wrap(self, x):
        if self.kind == "f":
            return float(x)
        if self.kind == "b":
            return int(bool(x))
        x = int(x) & ((1 << self.bits) - 1)
        if self.signed and x >> (self.bits - 1):
            x -= 1 << self.bits
        return x

    def op(self, name, old, v):
        if name in ("add", "add1"):
            return self.wrap(old + v)
        if name == "sub":
            return self.wrap(old - v)
        if name == "and":
            return old & v
        if name == "or":
            return old | v
        if name == "xor":
            return old ^ v
        if name in ("min", "vmin"):
            return min(old, v)
        if name in ("max", "vmax"):
            return max(old, v)
        raise ValueError(name)

    def rand(self, rng, n):
        if self.kind == "f":
            return rng.integers(-64, 65, n) / 8.0
        if self.kind == "b":
            return rng.integers(0, 2, n)
        lo, hi = (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1) if self.signed else (0, (1 << self.bits) - 1)
        return np.array([int(x) for x in rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if self.signed or
                                                      self.bits < 64 else np.uint64)], dtype=object)

    def distinct(self, rng, n, avoid):
        """n distinct values, none equal to any in avoid."""
        if self.kind == "f":
            pool = [float(x) for x in np.arange(1, 4 * n + 1) * 0.25 if float(x) not in avoid]
            return [float(x) for x in rng.permutation(pool)[:n]]
        out, seen = [], set(avoid)
        while len(out) < n:
            x = self.wrap(int(rng.integers(0, 1 << 32)) - (1 << 31 if self.signed else 0))
            if x not in seen:
                seen.add(x)
                out.append(x)
        return out

    def init(self, rng, op):
        if self.kind == "f":
            return float(rng.integers(-1000, 1001)) / 8.0
        if self.kind == "b":
            return int(rng.integers(0, 2))
        if op in ("add1", "cas"):       # near the top: the counter wraps
            top = (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1
            return top - int(rng.integers(10, 60))
        return self.wrap(int(self.rand(rng, 1)[0]))

    def encode(self, vals):
        if self.kind == "i" and self.bits == 64:
            return np.array([int(v) & (2 ** 64 - 1) for v in vals], dtype=np.uint64)
        if self.kind == "i":
            return np.array([int(v) & (2 ** 32 - 1) for v in vals], dtype=np.uint64).astype(np.uint32).view(self.dt)
        return np.asarray(vals).astype(self.dt)

    def decode(self, arr):
        if self.kind == "f":
            return [float(x) for x in arr]
        return [int(x) for x in arr]


# ---------------------------------------------------------------- kernel
def kernel_source(tname, spelling, ops, spaces):
    T = tname
    S = "uchar" if tname == "bool" else tname
    K = len(ops)
    inc = "!e" if tname == "bool" else "e + T(1)"
    lines = ["#include <metal_stdlib>", "using namespace metal;", f"typedef {T} T;", f"typedef {S} S;",
             f"#define AT {spelling}",
             "kernel void atomics_conf(device AT* dv [[buffer(0)]], device const S* val [[buffer(1)]],",
             "                         device S* ret [[buffer(2)]], device uchar* flg [[buffer(3)]],",
             "                         device const S* tini [[buffer(4)]], device S* tfin [[buffer(5)]],",
             "                         uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],",
             "                         uint tg [[threadgroup_position_in_grid]]) {",
             f"  const uint nt = min({TG}u, {GRID}u - tg * {TG}u);   // threads of this threadgroup",
             f"  const uint a = (gid * 7u + gid / 11u) % {NA}u;"]
    if "threadgroup" in spaces:
        lines += [f"  threadgroup AT ta[{K * NA}];",
                  f"  for (uint i = lid; i < {K * NA}u; i += nt)",
                  f"    atomic_store_explicit(&ta[i], T(tini[tg * {K * NA}u + i]), memory_order_relaxed);",
                  "  atomic_thread_fence(mem_flags::mem_threadgroup, memory_order_seq_cst, thread_scope_threadgroup);",
                  "  threadgroup_barrier(mem_flags::mem_threadgroup);"]
    lines.append("  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device);")
    W = max(NA, NTG)            # device slots per operation (ls1/lsN: one per threadgroup)
    for si, space in enumerate(spaces):
        dev = space == "device"
        bar = "mem_flags::mem_device" if dev else "mem_flags::mem_threadgroup"
        for k, op in enumerate(ops):
            idx = f"{(si * K + k) * GRID}u + gid"
            P = f"&dv[{k * W}u + a]" if dev else f"&ta[{k * NA}u + a]"
            Ptg = f"&dv[{k * W}u + tg]" if dev else f"&ta[{k * NA}u]"
            v = f"T(val[{idx}])"
            R = f"ret[{idx}]"
            O = "memory_order_relaxed"
            if op in ("add", "add1", "sub", "and", "or", "xor", "min", "max", "xchg"):
                body = f"{R} = S({FUNC_OF[op]}({P}, {v}, {O}));"
            elif op in ("vmin", "vmax"):
                body = f"{FUNC_OF[op]}({P}, {v}, {O});"
            elif op == "cas":
                body = (f"{{ T e = atomic_load_explicit({P}, {O}); "
                        f"while (!atomic_compare_exchange_weak_explicit({P}, &e, {inc}, {O}, {O})) {{}} {R} = S(e); }}")
            elif op == "casfail":
                body = (f"{{ T e = {v}; bool s = atomic_compare_exchange_weak_explicit({P}, &e, {v}, {O}, {O}); "
                        f"flg[{idx}] = uchar(s); {R} = S(e); }}")
            elif op == "ls1":
                body = (f"if (lid == nt - 1u) atomic_store_explicit({Ptg}, {v}, {O}); "
                        f"threadgroup_barrier({bar}); {R} = S(atomic_load_explicit({Ptg}, {O}));")
            elif op == "lsN":
                body = (f"atomic_store_explicit({Ptg}, {v}, {O}); threadgroup_barrier({bar}); "
                        f"{R} = S(atomic_load_explicit({Ptg}, {O}));")
            else:
                raise ValueError(op)
            lines.append(f"  /* {space} {op} */ {body}")
        lines.append(f"  atomic_thread_fence({bar}, memory_order_relaxed);")
    if "threadgroup" in spaces:
        lines += ["  threadgroup_barrier(mem_flags::mem_threadgroup);",
                  f"  for (uint i = lid; i < {K * NA}u; i += nt)",
                  f"    tfin[tg * {K * NA}u + i] = S(atomic_load_explicit(&ta[i], memory_order_relaxed));"]
    lines.append("}")
    return "\n".join(lines) + "\n", W


# ---------------------------------------------------------------- one kernel
def run_kernel(mslsim, tname, spelling, rng, tmp):
    """Returns (rows, problems): rows[(op, space)] = [checked, failed, details]."""
    A = Arith(tname)
    ops, tg_ok = TYPES[tname][6], TYPES[tname][5]
    spaces = ["device"] + (["threadgroup"] if tg_ok else [])
    K = len(ops)
    src, W = kernel_source(tname, spelling, ops, spaces)
    tag = f"{tname}_{'t' if '<' in spelling else 'n'}"
    path = os.path.join(tmp, f"atomics_{tag}.metal")
    with open(path, "w") as fh:
        fh.write(src)
    gids = np.arange(GRID)
    addr = (gids * 7 + gids // 11) % NA
    tgof = gids // TG
    lid = gids % TG
    ntof = np.minimum(TG, GRID - tgof * TG)
    # inputs: val[space][op][gid], device initial values, threadgroup initial values
    val = [[None] * K for _ in spaces]
    dinit = [[A.wrap(0)] * W for _ in range(K)]
    tinit = [[[A.wrap(0)] * NA for _ in range(K)] for _ in range(NTG)]
    for k, op in enumerate(ops):
        for a in range(NA):
            dinit[k][a] = A.init(rng, op)
            for t in range(NTG):
                tinit[t][k][a] = A.init(rng, op)
    for si, space in enumerate(spaces):
        for k, op in enumerate(ops):
            if op == "add1":
                v = [1] * GRID if A.kind != "f" else [1.0] * GRID
            elif op == "xchg" and A.kind != "b":
                inits = set(dinit[k][:NA]) | {tinit[t][k][a] for t in range(NTG) for a in range(NA)}
                v = A.distinct(rng, GRID, inits)
            elif op == "casfail":       # the address holds C; every thread expects a value != C
                v = []
                for g in range(GRID):
                    c = dinit[k][addr[g]] if space == "device" else tinit[tgof[g]][k][addr[g]]
                    x = A.wrap(int(not c)) if A.kind == "b" else A.wrap(c + 1 + int(rng.integers(0, 5)))
                    v.append(x)
            else:
                v = list(A.rand(rng, GRID))
                if A.kind == "f":
                    v = [float(x) for x in v]
                else:
                    v = [A.wrap(x) for x in v]
            val[si][k] = v
    val_flat = [x for si in range(len(spaces)) for k in range(K) for x in val[si][k]]
    files = {}
    S_dt = TYPES[tname][0]
    files["dv"] = os.path.join(tmp, f"atomics_{tag}.dv.npy")
    np.save(files["dv"], A.encode([x for k in range(K) for x in dinit[k]]))
    files["val"] = os.path.join(tmp, f"atomics_{tag}.val.npy")
    np.save(files["val"], A.encode(val_flat))
    files["tini"] = os.path.join(tmp, f"atomics_{tag}.tini.npy")
    np.save(files["tini"], A.encode([x for t in range(NTG) for k in range(K) for x in tinit[t][k]]))
    nret = len(spaces) * K * GRID
    dtn = {np.int32: "int32", np.uint32: "uint32", np.uint8: "uint8", np.float32: "float32", np.uint64: "uint64"}[S_dt]
    out = {k: os.path.join(tmp, f"atomics_{tag}.out_{k}.npy") for k in ("dv", "ret", "flg", "tfin")}
    base = [mslsim, "run", path, "--kernel", "atomics_conf", "--grid", str(GRID), "--threadgroup", str(TG),
            "--buffer", f"0={files['dv']}", "--buffer", f"1={files['val']}",
            "--buffer", f"2=zeros:{dtn}:{nret}", "--buffer", f"3=zeros:uint8:{nret}",
            "--buffer", f"4={files['tini']}", "--buffer", f"5=zeros:{dtn}:{NTG * K * NA}"]
    problems = []
    rows = {}
    for sched in ("in-order", "reverse"):
        cmd = base + ["--check", "none", "--schedule", sched] + \
            [a for k in ("dv", "ret", "flg", "tfin") for a in ("--output", f"{ {'dv': 0, 'ret': 2, 'flg': 3, 'tfin': 5}[k]}={out[k]}")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return {}, [f"{spelling}: mslsim --check none exit {r.returncode}: {r.stderr.strip()[:2000]}"]
        got = {k: np.load(out[k]) for k in out}
        check(A, ops, spaces, W, val, dinit, tinit, got, addr, tgof, lid, ntof, rows, sched)
    rep = os.path.join(tmp, f"atomics_{tag}.all.json")
    if os.path.exists(rep):
        os.remove(rep)
    r2 = subprocess.run(base + ["--check", "all", "--report-json", rep], capture_output=True, text=True)
    findings = []
    if os.path.exists(rep):
        with open(rep) as fh:
            findings = json.load(fh).get("diagnostics", [])
    if r2.returncode != 0 or findings or r2.stderr.strip() or not os.path.exists(rep):
        kinds = collections.Counter(d.get("kind") for d in findings)
        problems.append(f"{spelling}: --check all: exit {r2.returncode}, findings {dict(kinds)}: "
                        f"{r2.stderr.strip()[:1500]}")
    return rows, problems


def check(A, ops, spaces, W, val, dinit, tinit, got, addr, tgof, lid, ntof, rows, sched):
    K = len(ops)
    dv = A.decode(got["dv"])
    ret = A.decode(got["ret"])
    flg = [int(x) for x in got["flg"]]
    tfin = A.decode(got["tfin"])

    for si, space in enumerate(spaces):
        for k, op in enumerate(ops):
            row = rows.setdefault((op, space), [0, 0, []])

            def expect(ok, what, nvals=1):
                row[0] += nvals
                if not ok:
                    row[1] += 1
                    if len(row[2]) < 3:
                        row[2].append(f"[{sched}] {what}")

            off = (si * K + k) * GRID
            vals = val[si][k]
            # the groups of threads sharing an address: (label, threads, initial, final)
            groups = []
            if op in ("ls1", "lsN"):
                for t in range(NTG):
                    th = list(np.flatnonzero(tgof == t))
                    fin = dv[k * W + t] if space == "device" else tfin[(t * K + k) * NA]
                    groups.append((f"tg {t}", th, None, fin))
            else:
                for t in (range(NTG) if space == "threadgroup" else [None]):
                    for a in range(NA):
                        m = addr == a if t is None else (addr == a) & (tgof == t)
                        th = list(np.flatnonzero(m))
                        if t is None:
                            groups.append((f"addr {a}", th, dinit[k][a], dv[k * W + a]))
                        else:
                            groups.append((f"tg {t} addr {a}", th, tinit[t][k][a], tfin[(t * K + k) * NA + a]))
            for label, th, init, fin in groups:
                n = len(th)
                r = [ret[off + g] for g in th]
                v = [vals[g] for g in th]
                if op in ("add", "add1", "sub", "and", "or", "xor", "min", "max", "vmin", "vmax"):
                    want = init
                    for x in v:
                        want = A.op(op, want, x)
                    expect(fin == want, f"{label}: final {fin!r}, want {want!r}")
                    if op in ("vmin", "vmax"):
                        continue
                    lhs = collections.Counter(r + [fin])
                    rhs = collections.Counter([init] + [A.op(op, ri, vi) for ri, vi in zip(r, v)])
                    expect(lhs == rhs, f"{label}: returned old values are not the states of one sequence of "
                                       f"the operations (first returned {r[:4]!r})", n)
                    if op == "add1":
                        want_r = sorted(A.wrap(init + j) for j in range(n))
                        expect(sorted(r) == want_r, f"{label}: returned {sorted(r)[:6]!r}..., want a permutation "
                                                    f"of {want_r[:3]!r}...", n)
                elif op == "xchg":
                    if A.kind == "b":
                        expect(collections.Counter(r + [fin]) == collections.Counter([init] + v),
                               f"{label}: returned + final {collections.Counter(r + [fin])} != initial + written", n + 1)
                    else:
                        nxt = {}
                        dup = False
                        for ri, vi in zip(r, v):
                            dup |= ri in nxt
                            nxt[ri] = vi
                        cur, steps = init, 0
                        while cur in nxt and steps <= n:
                            cur = nxt[cur]
                            steps += 1
                        expect(not dup and steps == n and cur == fin,
                               f"{label}: no chain initial -> ... -> final through all {n} values "
                               f"(duplicate returned value: {dup}, chain length {steps}, ends {cur!r}, final {fin!r})", n + 1)
                elif op == "cas":
                    if A.kind == "b":
                        want = init ^ (n & 1)
                        expect(fin == want, f"{label}: final {fin}, want {want}")
                        c = collections.Counter(r)
                        expect(c[init] == (n + 1) // 2 and c[1 - init] == n // 2,
                               f"{label}: successes saw {dict(c)} (initial {init}, {n} toggles)", n)
                    else:
                        want = A.wrap(init + n)
                        expect(fin == want, f"{label}: final {fin!r}, want {want!r}")
                        want_r = sorted(A.wrap(init + j) for j in range(n))
                        expect(sorted(r) == want_r, f"{label}: successful expected values {sorted(r)[:6]!r}... are "
                                                    f"not the distinct {want_r[:3]!r}...", n)
                elif op == "casfail":
                    expect(fin == init, f"{label}: final {fin!r}, want the unchanged {init!r}")
                    f = [flg[off + g] for g in th]
                    expect(all(x == 0 for x in f), f"{label}: a CAS with a wrong expected value returned true", n)
                    expect(all(x == init for x in r), f"{label}: *expected after failure {r[:4]!r}, want {init!r}", n)
                elif op == "ls1":
                    writer = [g for g in th if lid[g] == ntof[g] - 1][0]
                    want = vals[writer]
                    expect(all(x == want for x in r) and fin == want,
                           f"{label}: loaded {sorted(set(r))[:4]!r}, final {fin!r}, want {want!r}", n + 1)
                elif op == "lsN":
                    expect(len(set(r)) == 1 and r[0] == fin and fin in set(v),
                           f"{label}: loaded {sorted(set(r))[:4]!r}, final {fin!r}, not one stored value", n + 1)


def main():
    opt, tmp, t0 = sweep.arguments("atomics", "only element types / spellings containing TEXT")
    rng = np.random.default_rng(RNG_SEED)
    problems = []
    results = {}
    for tname, (_, _, _, _, spellings, _, ops) in TYPES.items():
        for sp in spellings:
            if opt.filter not in tname and opt.filter not in sp:
                continue
            rows, probs = run_kernel(opt.mslsim, tname, sp, rng, tmp)
            problems += probs
            print(f"-- {sp:14s} {len(ops):3d} operations ({time.time() - t0:.0f} s)", flush=True)
            for (op, space), row in rows.items():
                results[(op, sp, space)] = row + [XFAIL.get((op, tname, space))]
    total = 0
    nok = 0
    funcs = set()
    for key in sorted(results):
        op, sp, space = key
        checked, failed, detail, xf = results[key]
        total += checked
        funcs.update(FUNC_OF[op].split("+"))
        status = sweep.judge(problems, f"{op}/{sp}/{space}", checked, failed, detail, xf)
        nok += status == "ok"
        if opt.verbose or status != "ok":
            print(f"  {status:6s} {op:8s} {sp:14s} {space:12s} {checked:6d} values {failed:4d} failed checks"
                  f"{f' ({xf})' if xf else ''}")
    funcs.add("atomic_thread_fence")
    print(f"\natomics: {len(funcs)} functions, {len(results)} cases (operation x spelling x address space), "
          f"{nok} ok, {total} values checked ({time.time() - t0:.1f} s)")
    return sweep.finish(problems)


if __name__ == "__main__":
    sys.exit(main())
