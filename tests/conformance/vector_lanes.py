#!/usr/bin/python3
"""The vector lanes against every thread on its own: what the vectoriser (sim/LaneVectoriser.cpp)
must get right beyond the SIMD-group functions themselves (tests/conformance/simd.py).

Usage: /usr/bin/python3 tests/conformance/vector_lanes.py PATH_TO_MSLSIM [--filter TEXT] [--verbose] [--keep DIR]

Each kernel below calls a SIMD-group function (so that unchecked runs take the vector lanes) and
exercises one thing the vectoriser transforms: the built-ins of every thread in 1-, 2- and
3-dimensional threadgroups with partial SIMD-groups, branches and loops whose trip count depends
on the lane (break, continue, early return, switch), private arrays indexed per lane, integer
division where lanes that are not there hold a zero, atomics, libm calls, vectors of four,
threadgroup memory across barriers. Each runs with `--check none` and the default checks (which
must say path="vector lanes", or for the kernel marked FALLBACK a per-thread path), with
`--simd-lanes threads` under both and `--schedule reverse` (every thread alone: the same bytes),
and with `--check all` (the same bytes, no finding); where the expected output is simple to state,
numpy's reference is compared too. Kernels with bugs (accesses out of bounds, of buffers and of a
private array, in loops the checks are hoisted out of; a SIMD-group skipping a barrier; barriers
that differ) must get the same report as vector lanes as thread by thread, threads named included.
Exit status 1 on any difference.
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
import sweep  # noqa: E402

SOURCE = r"""
#include <metal_stdlib>
using namespace metal;

// Every built-in of every thread, and a SIMD-group sum of the linear index.
kernel void builtins(device uint* out [[buffer(0)]],
                     uint3 gid [[thread_position_in_grid]], uint3 lid [[thread_position_in_threadgroup]],
                     uint3 tg [[threadgroup_position_in_grid]], uint3 tpg [[threads_per_threadgroup]],
                     uint3 grid [[threads_per_grid]], uint li [[thread_index_in_threadgroup]],
                     uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]],
                     uint qi [[thread_index_in_quadgroup]], uint qg [[quadgroup_index_in_threadgroup]]) {
  uint t = (gid.z * grid.y + gid.y) * grid.x + gid.x;
  device uint* o = out + t * 12;
  o[0] = gid.x; o[1] = gid.y; o[2] = gid.z;
  o[3] = lid.x; o[4] = lid.y; o[5] = lid.z;
  o[6] = li; o[7] = lane; o[8] = sg; o[9] = qi; o[10] = qg;
  o[11] = simd_sum(li);
}

// Loops whose trip count depends on the lane, with break and continue; an early return.
kernel void loops(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                  uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
  if (gid % 7 == 3) { y[gid] = -1.0f; return; }
  float s = 0.0f;
  for (uint i = 0; i < lane + 3; ++i) {
    if ((i + gid) % 5 == 0) continue;
    s += x[(gid + i) % 256];
    if (s > 40.0f) break;
  }
  uint k = lane;
  while (k > 1) k = (k % 2 == 0) ? k / 2 : 3 * k + 1;
  switch (lane % 4) {
    case 0: s *= 2.0f; break;
    case 1: s -= 1.0f; break;
    case 3: s = -s; break;
    default: break;
  }
  y[gid] = simd_sum(s) + s + float(k);
}

// Private arrays indexed by the lane; division by values that are zero in lanes that skip it.
kernel void arrays(device const int* a [[buffer(0)]], device int* y [[buffer(1)]],
                   uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
  int v[8];
  for (int i = 0; i < 8; ++i) v[i] = a[(gid * 8 + i) % 256];
  v[lane % 8] += int(lane);
  int d = int(lane % 3);  // zero for every third lane
  int q = 0;
  if (d != 0) q = v[(lane * 5) % 8] / d + v[lane % 8] % d;
  y[gid] = simd_max(q) + v[(lane + 1) % 8] + q;
}

// Atomics in lane order, libm calls, vectors of four, threadgroup memory across barriers.
kernel void mixed(device const float4* x [[buffer(0)]], device float4* y [[buffer(1)]],
                  device atomic_uint* counter [[buffer(2)]], device uint* order [[buffer(3)]],
                  uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],
                  uint size [[threads_per_threadgroup]],
                  uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]],
                  uint nsg [[simdgroups_per_threadgroup]]) {
  threadgroup float4 partial[32];
  threadgroup float4 rotated[128];
  float4 v = x[gid];
  float4 e = exp(v * 0.25f) + float4(tanh(v.x), pow(fabs(v.y) + 1.0f, 0.5f), sin(v.z), log(fabs(v.w) + 1.0f));
  if (lane % 3 == 0) order[gid] = atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
  float4 s = simd_sum(e);
  if (lane == 0) partial[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float4 total = float4(0.0f);
  for (uint i = 0; i < nsg; ++i) total += partial[i];
  rotated[lid] = e.yzwx;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  y[gid] = total + rotated[(lid + 1) % size].wzyx + simd_broadcast_first(e);
}

// Out of bounds under the default checks, as vector lanes: a row loop whose last element is one
// past the row (past the buffer in the last row: one lane of that threadgroup), a private array
// read past its end by every fifth lane, a store far past the end by one thread.
kernel void overruns(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                     constant uint& width [[buffer(2)]],
                     uint row [[threadgroup_position_in_grid]], uint lid [[thread_position_in_threadgroup]],
                     uint size [[threads_per_threadgroup]], uint lane [[thread_index_in_simdgroup]],
                     uint gid [[thread_position_in_grid]]) {
  device const float* in = x + row * width;
  float s = 0.0f;
  for (uint i = lid; i < width + 1u; i += size) s += in[i];
  float v[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  s += v[(lane * 7u) % 5u];
  float t = simd_sum(s);
  y[gid + (gid == 37u ? 100000u : 0u)] = t;
}

// The sync check as vector lanes: a whole SIMD-group returns before a barrier (the others wait
// there); the SIMD-groups of a threadgroup wait at different barriers.
kernel void barrier_skipped(device float* y [[buffer(0)]], uint gid [[thread_position_in_grid]],
                            uint lid [[thread_position_in_threadgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float t[96];
  if (sg == 1) return;
  t[lid] = float(lid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  y[gid] = simd_sum(t[lid ^ 1]);
}
kernel void barriers_differ(device float* y [[buffer(0)]], uint gid [[thread_position_in_grid]],
                            uint lid [[thread_position_in_threadgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float t[96];
  t[lid] = float(lid);
  if (sg == 1) threadgroup_barrier(mem_flags::mem_threadgroup);
  else threadgroup_barrier(mem_flags::mem_threadgroup);
  y[gid] = simd_sum(t[lid ^ 1]);
}

// The tiled GEMM as tutorials write it (N from `constant uint&`, no guards). Under the default
// checks, N's load and the tiles' bounds checks branch per lane inside the tile loop and meet again
// before its barriers: the loop's exit stays uniform, so the checked build keeps the vector lanes,
// and N, read in the loop and used after it, stays one value for every lane.
kernel void tile_loop(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]],
                      device float* C [[buffer(2)]], constant uint& N [[buffer(3)]],
                      uint2 gid [[thread_position_in_grid]], uint2 tid [[thread_position_in_threadgroup]]) {
  threadgroup float As[16][16];
  threadgroup float Bs[16][16];
  const uint row = gid.y, col = gid.x, tx = tid.x, ty = tid.y;
  float sum = 0.0f;
  for (uint t = 0; t < N; t += 16) {
    As[ty][tx] = A[row * N + (t + tx)];
    Bs[ty][tx] = B[(t + ty) * N + col];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint k = 0; k < 16; ++k) sum += As[ty][k] * Bs[k][tx];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  C[row * N + col] = sum;
}

// FALLBACK: a barrier only some lanes reach is left to the per-thread paths.
kernel void fallback(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                     uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]]) {
  threadgroup float t[64];
  t[lid] = simd_sum(x[gid]);
  if (lid < 64) threadgroup_barrier(mem_flags::mem_threadgroup);
  y[gid] = t[(lid + 1) % 64];
}
"""


def builtins_reference(grid, group):
    """numpy: the 12 words the builtins kernel writes per thread, for a grid of threads."""
    gx, gy, gz = grid
    sx, sy, sz = group
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    lx, ly, lz = x % sx, y % sy, z % sz
    li = (lz * sy + ly) * sx + lx
    lane, sg = li % 32, li // 32
    count = sx * sy * sz
    # the SIMD-group's sum of li over the lanes that exist
    first = sg * 32
    last = np.minimum(first + 32, count)
    sums = (first + last - 1) * (last - first) // 2
    words = [x, y, z, lx, ly, lz, li, lane, sg, li % 4, li // 4, sums]
    return np.stack([w.ravel() for w in words], axis=1).astype(np.uint32).ravel()


def same_findings(opt, path, tmp, problems, rows, label, kernel, grid, group, buffers, output, expected):
    """The default checks as vector lanes report what they report thread by thread: the same
    findings (kind, line, counts, and the threads and lanes named), the same bytes written;
    `expected` lists the (kind, line) of the findings."""
    base = [opt.mslsim, "run", path, "--kernel", kernel, "--grid", str(grid), "--threadgroup", str(group),
            "--workers", "1"] + sum((["--buffer", f"{i}={spec}"] for i, spec in buffers.items()), [])
    reports, outputs = {}, {}
    for mode, extra in (("vector", ["--timing"]), ("threads", ["--simd-lanes", "threads", "--timing"])):
        out, report = (os.path.join(tmp, f"{kernel}.{mode}.{k}") for k in ("npy", "json"))
        p = subprocess.run(base + extra + ["--output", f"{output}={out}", "--report-json", report],
                           capture_output=True, text=True)
        taken = (re.search(r'path="([^"]*)"', p.stderr) or [None, ""])[1]
        if p.returncode not in (0, 1) or (taken == "vector lanes") != (mode == "vector") or not os.path.exists(report):
            problems.append(f"{label} ({mode}): exit {p.returncode}, path {taken!r}: {p.stderr[-600:]}")
            return
        with open(report) as f:
            reports[mode] = json.load(f)["diagnostics"]
        outputs[mode] = np.load(out)
    found = sorted((d["kind"], a["line"]) for d in reports["vector"] for a in d["accesses"])
    if found != sorted(expected):
        problems.append(f"{label}: vector lanes reported {found}, expected {sorted(expected)}")
    if reports["vector"] != reports["threads"]:
        problems.append(f"{label}: the reports differ: vector lanes {reports['vector']}, threads {reports['threads']}")
    if outputs["vector"].tobytes() != outputs["threads"].tobytes():
        problems.append(f"{label}: buffer {output} differs between vector lanes and threads")
    rows.append(label)


def main():
    opt, tmp, start = sweep.arguments("vector-lanes", "only kernels whose name contains this")
    path = os.path.join(tmp, "vector_lanes.metal")
    with open(path, "w") as f:
        f.write(SOURCE)
    rng = np.random.default_rng(20261126)
    problems = []
    rows = []

    def save(name, array):
        p = os.path.join(tmp, name + ".npy")
        np.save(p, array)
        return p

    def run(label, kernel, grid, group, buffers, outputs, expect_vector=True, unordered=()):
        base = [opt.mslsim, "run", path, "--kernel", kernel, "--grid", ",".join(map(str, grid)),
                "--threadgroup", ",".join(map(str, group)), "--workers", "1"]  # one: the atomics' order
        for index, spec in buffers.items():
            base += ["--buffer", f"{index}={spec}"]
        results = {}
        for mode, extra in (("vector", ["--check", "none", "--timing"]),
                            ("threads", ["--check", "none", "--simd-lanes", "threads", "--timing"]),
                            ("checked", ["--timing"]),
                            ("checked-threads", ["--simd-lanes", "threads", "--timing"]),
                            ("all", ["--check", "all"]),
                            ("reverse", ["--check", "none", "--schedule", "reverse"])):
            stem = re.sub(r"[^A-Za-z0-9]+", "_", label)
            outs = {i: os.path.join(tmp, f"{stem}.{mode}.{i}.npy") for i in outputs}
            cmd = base + extra + sum((["--output", f"{i}={p}"] for i, p in outs.items()), [])
            p = subprocess.run(cmd, capture_output=True, text=True)
            # Checked runs find nothing: no error, and only the loops kernel's intended warning (lanes
            # that returned early miss its simd_sum) under --check all.
            quiet = re.sub(r"^timing: .*\n?", "", p.stderr, flags=re.M).strip()
            if p.returncode != 0 or (mode.startswith("checked") and quiet) or (mode == "all" and "error [" in p.stderr):
                problems.append(f"{label} ({mode}): exit {p.returncode}: {p.stderr.strip()[:800]}")
                return None
            found = re.search(r'path="([^"]*)"', p.stderr)
            taken = found.group(1) if found else ""
            if mode in ("vector", "checked") and (taken == "vector lanes") != expect_vector:
                problems.append(f"{label}: {mode} ran as {taken!r}")
            if mode in ("threads", "checked-threads", "reverse") and taken == "vector lanes":
                problems.append(f"{label}: {mode} ran as vector lanes")
            results[mode] = {i: np.load(p) for i, p in outs.items()}
        for i in outputs:
            for mode in ("threads", "checked", "checked-threads", "all", "reverse"):
                got, want = results[mode][i], results["vector"][i]
                if mode == "reverse" and i in unordered:  # the atomics' order follows the schedule
                    got, want = np.sort(got, axis=None), np.sort(want, axis=None)
                if got.tobytes() != want.tobytes():
                    differ = int((got.view(np.uint8) != want.view(np.uint8)).sum())
                    problems.append(f"{label}: buffer {i} differs between vector lanes and {mode} ({differ} bytes)")
        rows.append(label)
        return results["vector"]

    shapes = [((64,), (64,)), ((77,), (77,)), ((40, 3), (5, 3)), ((16, 16), (16, 16)), ((14, 9, 4), (7, 3, 2)),
              ((33, 2), (33, 1)), ((96, 4), (32, 4)), ((24, 10, 3), (8, 5, 3))]
    if "builtins" in opt.filter or not opt.filter:
        for grid, group in shapes:
            grid3 = tuple(grid) + (1,) * (3 - len(grid))
            group3 = tuple(group) + (1,) * (3 - len(group))
            n = int(np.prod(grid3))
            label = "builtins " + "x".join(map(str, group))
            got = run(label, "builtins", grid, group, {0: f"zeros:uint32:{n * 12}"}, [0])
            if got is not None and not np.array_equal(got[0].ravel(), builtins_reference(grid3, group3)):
                problems.append(f"{label}: built-ins differ from numpy's")
    x = rng.uniform(-2, 6, 256).astype(np.float32)
    ints = rng.integers(-1000, 1000, 256).astype(np.int32)
    x4 = rng.uniform(-2, 2, (256, 4)).astype(np.float32)
    a48 = rng.uniform(-1, 1, (48, 48)).astype(np.float32)
    b48 = rng.uniform(-1, 1, (48, 48)).astype(np.float32)
    for kernel, grid, group, buffers, outputs, vector in (
            ("loops", (256,), (96,), {0: save("x", x), 1: "zeros:float32:256"}, [1], True),
            ("loops", (200,), (50,), {0: save("x", x), 1: "zeros:float32:200"}, [1], True),
            ("arrays", (256,), (64,), {0: save("ints", ints), 1: "zeros:int32:256"}, [1], True),
            ("arrays", (90,), (45,), {0: save("ints", ints), 1: "zeros:int32:90"}, [1], True),
            ("mixed", (256,), (128,), {0: save("x4", x4), 1: "zeros:float32:1024", 2: "zeros:uint32:1",
                                       3: "fill:uint32:256:4294967295"}, [1, 2, 3], True),
            ("mixed", (200,), (100,), {0: save("x4", x4), 1: "zeros:float32:1024", 2: "zeros:uint32:1",
                                       3: "fill:uint32:256:4294967295"}, [1, 2, 3], True),
            ("tile_loop", (48, 32), (16, 16), {0: save("a48", a48), 1: save("b48", b48), 2: "zeros:float32:2304",
                                                3: "scalar:uint32:48"}, [2], True),
            ("fallback", (128,), (64,), {0: save("x", x), 1: "zeros:float32:128"}, [1], False)):
        if opt.filter and opt.filter not in kernel:
            continue
        got = run(f"{kernel} {grid[0]}/{group[0]}", kernel, grid, group, buffers, outputs, vector,
                  unordered=(3,) if kernel == "mixed" else ())
        if kernel == "tile_loop" and got is not None:
            want = a48.astype(np.float64) @ b48.astype(np.float64)
            if not np.allclose(got[2].reshape(48, 48)[:32, :], want[:32, :], rtol=1e-5, atol=1e-4):
                problems.append("tile_loop: C differs from numpy's A @ B")
    if not opt.filter or opt.filter in "overruns":
        width, rows_n = 100, 4
        same_findings(opt, path, tmp, problems, rows, "overruns", "overruns", rows_n * 64, 64,
                      {0: save("overrun_x", np.arange(width * rows_n, dtype=np.float32)),
                       1: f"zeros:float32:{rows_n * 64}", 2: f"scalar:uint32:{width}"}, 1,
                      [("out-of-bounds", 85), ("out-of-bounds", 87), ("out-of-bounds", 89)])
    if not opt.filter or opt.filter in "barriers":
        same_findings(opt, path, tmp, problems, rows, "barrier skipped", "barrier_skipped", 192, 96,
                      {0: "zeros:float32:192"}, 0, [("barrier-divergence", 99)])
        same_findings(opt, path, tmp, problems, rows, "barriers differ", "barriers_differ", 192, 96,
                      {0: "zeros:float32:192"}, 0, [("barrier-divergence", 106), ("barrier-divergence", 107)])
    for r in rows:
        if opt.verbose:
            print("  ok?", r)
    print(f"vector lanes: {len(rows)} runs compared ({time.time() - start:.1f} s)")
    for p in problems:
        print("  " + p)
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
