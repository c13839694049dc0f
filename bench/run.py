#!/usr/bin/env python3
"""Benchmarks mslsim side by side with POCL, Oclgrind and plain C++ loops, in one run on one machine.

Usage: /usr/bin/python3 bench/run.py [--build build] [--quick] [--only NAME ...]

Every kernel is written twice, in MSL for mslsim and in OpenCL C for the peers (bench/kernels/),
with the same sizes and threadgroup shapes. Runs, per kernel:
  * mslsim --check none with one worker and with one worker per core (--workers; builds without
    that option: taskset -c 0 and the default), mslsim --check all with one worker and one per core;
    compile time cold (empty MSLSIM_CACHE_DIR) and cached, from --timing;
  * POCL through bench/opencl_host (median kernel time between clFinish calls; build separately);
  * Oclgrind, with and without --data-races, through its `oclgrind` wrapper, at a smaller size
    it finishes in seconds; its time is scaled up by the work ratio (shown in the table);
  * bench/reference_loops: a plain single-threaded C++ loop compiled -O2.
Every run's output is checked against numpy before its time counts; a mismatch stops the script.
Prints the machine description and Markdown tables to stdout."""
import argparse
import dataclasses
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(HERE, "kernels")
MSLSIM_TIMING = re.compile(r"timing: compile_ms=([0-9.]+) dispatch_ms_median=([0-9.]+)")
MSLSIM_CPU = re.compile(r"dispatch_cpu_ms=([0-9.]+) waiting_cpu_ms=([0-9.]+) progress_cpu_ms=([0-9.]+)")
HOST_TIMING = re.compile(r"build_ms=([0-9.]+) first_ms=([0-9.]+) kernel_ms_median=([0-9.]+)")
NO_SUBGROUPS = "n/a (no sub-groups)"


class BenchError(Exception):
    pass


@dataclasses.dataclass
class Case:
    """One kernel at one size: its arguments (in the same order for MSL buffer indices and OpenCL
    argument indices), its launch shape, and what numpy says the output must be."""
    args: list            # ("npy", array) | ("zeros", count) | ("uint", value) | ("float", value)
    grid: tuple           # threads (OpenCL global size)
    group: tuple          # threads per threadgroup (OpenCL local size)
    out: int              # index of the argument that holds the result
    expected: np.ndarray  # float64
    rtol: float
    atol: float
    work: float           # for scaling Oclgrind's time from its smaller size
    label: str            # the size, for the table


@dataclasses.dataclass
class Bench:
    name: str
    title: str
    metal: str            # bench/kernels/NAME.metal, kernel function name below
    kernel: str
    cl: str               # bench/kernels/NAME.cl, same function name
    subgroups: bool       # the OpenCL version needs cl_khr_subgroups
    reference: str        # reference_loops KERNEL
    make: object          # (size, rng) -> Case
    full: int
    quick: int
    grind: int            # the size Oclgrind runs at (full mode)
    grind_quick: int


def human(n):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def uniform(rng, n):
    return rng.standard_normal(n).astype(np.float32)


def make_add(n, rng):
    a, b = uniform(rng, n), uniform(rng, n)
    return Case([("npy", a), ("npy", b), ("zeros", n), ("uint", n)], (n,), (256,), 2,
                (a + b).astype(np.float64), 0, 0, n, f"{human(n)} floats")


def make_softcap(n, rng):
    x = uniform(rng, n) * 10
    return Case([("npy", x), ("zeros", n), ("float", 5.0), ("uint", n)], (n,), (256,), 1,
                5.0 * np.tanh(x.astype(np.float64) / 5.0), 1e-5, 1e-5, n, f"{human(n)} floats")


def make_gemm(n, rng):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    shape = np.array([n, n, n], dtype=np.uint32)
    return Case([("npy", a), ("npy", b), ("zeros", n * n), ("npy", shape)], (n, n), (16, 16), 2,
                (a.astype(np.float64) @ b).ravel(), 1e-4, 1e-3, float(n) ** 3, f"{n}x{n}")


def make_gemm_plain(n, rng):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    return Case([("npy", a), ("npy", b), ("zeros", n * n), ("uint", n)], (n, n), (16, 16), 2,
                (a.astype(np.float64) @ b).ravel(), 1e-4, 1e-3, float(n) ** 3, f"{n}x{n}")


def make_gemm_simdgroup(n, rng):
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    return Case([("npy", a), ("npy", b), ("zeros", n * n), ("uint", n)], (n // 32 * 128, n // 32), (128, 1), 2,
                (a.astype(np.float64) @ b).ravel(), 1e-4, 1e-3, float(n) ** 3, f"{n}x{n}")


def make_reduce(n, rng):
    x = uniform(rng, n)
    return Case([("npy", x), ("zeros", n // 256), ("uint", n)], (n,), (256,), 1,
                x.astype(np.float64).reshape(-1, 256).sum(axis=1), 1e-4, 1e-3, n, f"{human(n)} floats")


def make_depthwise(n, rng):
    channels, length = 512, 4096
    batch = max(1, n // (channels * length))
    if batch * channels * length != n:  # small sizes: fewer channels
        channels = n // length
    x = rng.standard_normal((batch, channels, length), dtype=np.float32)
    k = rng.standard_normal((channels, 3), dtype=np.float32)
    params = np.array([batch, channels, length], dtype=np.uint32)
    xd, kd = x.astype(np.float64), k.astype(np.float64)[None, :, :, None]
    padded = np.pad(xd, ((0, 0), (0, 0), (1, 1)))
    y = padded[:, :, :-2] * kd[:, :, 0] + padded[:, :, 1:-1] * kd[:, :, 1] + padded[:, :, 2:] * kd[:, :, 2]
    return Case([("npy", params), ("npy", x), ("npy", k), ("zeros", n)], (n,), (256,), 3,
                y.ravel(), 1e-5, 1e-5, n, f"({batch}, {channels}, {length})")


def make_scan(n, rng):
    x = uniform(rng, n)
    blocks = x.astype(np.float64).reshape(-1, 256)
    exclusive = np.cumsum(blocks, axis=1) - blocks
    return Case([("npy", x), ("zeros", n), ("zeros", n // 256), ("uint", n)], (n,), (256,), 1,
                exclusive.ravel(), 1e-4, 1e-3, n, f"{human(n)} floats")


def make_softmax(n, rng):
    width = 4096 if n >= 4096 * 64 else 1024
    x = rng.standard_normal((n // width, width), dtype=np.float32) * 4
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    return Case([("npy", x), ("zeros", n), ("uint", width)], (n // width * 256,), (256,), 1,
                (e / e.sum(axis=1, keepdims=True)).ravel(), 1e-4, 1e-8, n, f"{n // width} rows of {width}")


def make_rmsnorm(n, rng):
    width = 4096 if n >= 4096 * 64 else 1024
    x = rng.standard_normal((n // width, width), dtype=np.float32)
    w = rng.standard_normal(width, dtype=np.float32)
    xd = x.astype(np.float64)
    y = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + 1e-5) * w.astype(np.float64)
    return Case([("npy", x), ("npy", w), ("zeros", n), ("uint", width), ("float", 1e-5)], (n // width * 256,),
                (256,), 2, y.ravel(), 1e-4, 1e-5, n, f"{n // width} rows of {width}")


M = 1 << 20
BENCHES = [
    Bench("add", "element-wise add", "add", "add", "add", False, "add", make_add, 16 * M, 256 << 10, 2 * M, 64 << 10),
    Bench("softcap", "soft cap c·tanh(x/c)", "softcap", "soft_cap", "softcap", False, "softcap", make_softcap,
          16 * M, 256 << 10, M, 64 << 10),
    Bench("gemm512", "tiled SGEMM 16x16", "gemm", "gemm_tiled_16x16", "gemm", False, "gemm", make_gemm,
          512, 64, 128, 32),
    Bench("gemm1024", "tiled SGEMM 16x16", "gemm", "gemm_tiled_16x16", "gemm", False, "gemm", make_gemm,
          1024, 128, 256, 32),
    # Shapes found outside the bench (issue 37): the unguarded tutorial GEMM, whose checked build
    # once lost the vector lanes; a tree reduction small enough for per-dispatch costs to show.
    Bench("gemm_plain", "tiled SGEMM 16x16, unguarded, `constant uint& N`", "gemm_plain", "gemm_plain", "gemm_plain",
          False, "gemm", make_gemm_plain, 512, 64, 128, 32),
    # The matrix products of MLX's and ggml's GEMMs and attention (simdgroup_matrix; the OpenCL
    # peers compute the same tiles without them).
    Bench("gemm_simdgroup", "SGEMM with simdgroup_matrix 8x8 products", "gemm_simdgroup", "gemm_simdgroup",
          "gemm_simdgroup", False, "gemm", make_gemm_simdgroup, 512, 64, 128, 32),
    Bench("reduce", "tree reduction, barriers", "reduce", "reduce_tree", "reduce", False, "reduce", make_reduce,
          16 * M, 256 << 10, M, 16 << 10),
    Bench("reduce16k", "tree reduction, barriers", "reduce", "reduce_tree", "reduce", False, "reduce", make_reduce,
          16 << 10, 4 << 10, 16 << 10, 4 << 10),
    Bench("reduce_simd", "reduction with simd_sum", "reduce_simd", "reduce_simd", "reduce_simd", True, "reduce",
          make_reduce, 16 * M, 256 << 10, M, 16 << 10),
    Bench("depthwise", "depthwise conv, 3 taps", "depthwise", "depthwise3", "depthwise", False, "depthwise",
          make_depthwise, 16 * M, 256 << 10, M, 64 << 10),
    Bench("scan", "2-level simd_prefix_exclusive_sum scan", "scan", "scan_block", "scan", True, "scan", make_scan,
          16 * M, 256 << 10, M, 16 << 10),
    Bench("softmax", "row softmax, simd_max/simd_sum", "softmax", "softmax_rows", "softmax", True, "softmax",
          make_softmax, 16 * M, 256 << 10, M, 64 << 10),
    Bench("rmsnorm", "rms_norm, simd_sum", "rmsnorm", "rms_norm_rows", "rmsnorm", True, "rmsnorm",
          make_rmsnorm, 16 * M, 256 << 10, M, 64 << 10),
]


class Runner:
    def __init__(self, build, tmp, quick):
        self.build, self.tmp, self.quick = build, tmp, quick
        self.env = dict(os.environ)
        # Fresh compile caches: the first mslsim run of each kernel compiles cold, and so does POCL.
        self.env["MSLSIM_CACHE_DIR"] = os.path.join(tmp, "mslsim-cache")
        self.env["POCL_CACHE_DIR"] = os.path.join(tmp, "pocl-cache")
        self.mslsim_bin = os.path.join(build, "bin", "mslsim")
        self.host = os.path.join(build, "bench", "opencl_host")
        self.reference_bin = os.path.join(build, "bench", "reference_loops")
        self.repeats = 1 if quick else 3
        self.cores = os.cpu_count()
        # `mslsim run --workers N` where the build has it; older builds: one core via taskset.
        self.has_workers = "--workers" in subprocess.run([self.mslsim_bin, "run", "--help"], capture_output=True,
                                                         text=True).stdout
        self.has_progress = "--progress" in subprocess.run([self.mslsim_bin, "--help"], capture_output=True,
                                                           text=True).stdout
        self.saved = {}  # id(array) -> (path, array)
        self.peers = {}  # "pocl" / "oclgrind" -> info dict, or a reason it is not available
        for peer in ("pocl", "oclgrind"):
            self.peers[peer] = self.peer_info(peer)

    def run(self, cmd, what):
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env)
        if p.returncode != 0:
            raise BenchError(f"{what} failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
        return p

    def peer_prefix(self, peer, data_races=False):
        if peer == "pocl":
            return []
        # Debian's oclgrind is a wrapper that preloads its OpenCL runtime (liboclgrind-rt.so) and
        # execs the program; its ICD is not registered, so this is the reproducible way to reach it.
        return ["oclgrind", "--num-threads", str(os.cpu_count())] + (["--data-races"] if data_races else [])

    def peer_info(self, peer):
        if not os.path.exists(self.host):
            return "n/a (opencl_host not built: no OpenCL headers/loader)"
        if peer == "oclgrind" and not shutil.which("oclgrind"):
            return "n/a (oclgrind not installed)"
        p = subprocess.run(self.peer_prefix(peer) + [self.host, "--platform", peer, "--info"],
                           capture_output=True, text=True, env=self.env)
        if p.returncode != 0:
            return f"n/a ({peer} platform not found)"
        return dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)

    def save(self, name, index, array):
        """The array as a .npy file, written once however many runs read it."""
        key = id(array)
        if key not in self.saved:
            self.saved[key] = (os.path.join(self.tmp, f"{name}_{index}_{len(self.saved)}.npy"), array)
            np.save(self.saved[key][0], array)
        return self.saved[key][0]

    def output(self, name):
        path = os.path.join(self.tmp, f"{name}.out.npy")
        if os.path.exists(path):
            os.remove(path)  # a run that writes nothing must not pass on an earlier run's output
        return path

    def verify(self, what, case, path):
        got = np.load(path).astype(np.float64).ravel()
        if got.shape != case.expected.shape or not np.allclose(got, case.expected, rtol=case.rtol, atol=case.atol):
            worst = np.max(np.abs(got - case.expected)) if got.shape == case.expected.shape else "shape"
            raise BenchError(f"{what}: output does not match numpy (max abs error {worst})")

    def mslsim(self, bench, case, checks, workers=None, repeats=None, extra=()):
        """Returns (compile_ms, dispatch_ms) after checking the output. workers=None: mslsim's default."""
        out = self.output(f"{bench.name}_mslsim")
        cmd = ["taskset", "-c", "0"] if workers == 1 and not self.has_workers else []
        cmd += [self.mslsim_bin, "run", os.path.join(KERNELS, bench.metal + ".metal"), "--kernel", bench.kernel,
                "--grid", ",".join(map(str, case.grid)), "--threadgroup", ",".join(map(str, case.group)),
                "--check", checks, "--timing", "--repeat", str(repeats or self.repeats), "--timeout", "3600",
                "--output", f"{case.out}={out}"]
        if workers and self.has_workers:
            cmd += ["--workers", str(workers)]
        cmd += list(extra)
        for i, (kind, value) in enumerate(case.args):
            spec = {"npy": lambda: self.save(bench.name, i, value), "zeros": lambda: f"zeros:float32:{value}",
                    "uint": lambda: f"scalar:uint32:{value}", "float": lambda: f"scalar:float32:{value}"}[kind]()
            cmd += ["--buffer", f"{i}={spec}"]
        p = self.run(cmd, f"mslsim {bench.name} --check {checks}")
        self.verify(f"mslsim {bench.name} --check {checks}", case, out)
        m = MSLSIM_TIMING.search(p.stderr)
        cpu = MSLSIM_CPU.search(p.stderr)  # builds before the CPU times have none
        self.last_cpu = tuple(map(float, cpu.groups())) if cpu else None
        path = re.search(r'path="([^"]*)"', p.stderr)  # builds before the paths have none
        self.last_path = path.group(1) if path else "n/a"
        return float(m.group(1)), float(m.group(2))

    def peer(self, peer, bench, case, data_races=False):
        """Returns (build_ms, kernel_ms) after checking the output, or the reason it cannot run."""
        info = self.peers[peer]
        if isinstance(info, str):
            return info
        if bench.subgroups and info.get("subgroups") != "1":
            return NO_SUBGROUPS
        out = self.output(f"{bench.name}_{peer}")
        cmd = self.peer_prefix(peer, data_races) + [
            self.host, "--platform", peer, "--file", os.path.join(KERNELS, bench.cl + ".cl"), "--kernel", bench.kernel,
            "--global", ",".join(map(str, case.grid)), "--local", ",".join(map(str, case.group)),
            "--output", f"{case.out}={out}"]
        if peer == "oclgrind":
            cmd += ["--repeat", "1", "--warmup", "0"]  # an interpreter: nothing to warm up
        else:
            cmd += ["--repeat", str(max(self.repeats, 5)), "--warmup", "1"]
        if bench.subgroups:
            cmd += ["--build-options", "-cl-std=CL3.0" if "OpenCL 3" in info["version"] else "-cl-std=CL2.0"]
        for i, (kind, value) in enumerate(case.args):
            spec = {"npy": lambda: "npy:" + self.save(bench.name, i, value), "zeros": lambda: f"zeros:float32:{value}",
                    "uint": lambda: f"uint:{value}", "float": lambda: f"float:{value}"}[kind]()
            cmd += ["--arg", spec]
        what = f"{peer}{' --data-races' if data_races else ''} {bench.name}"
        p = self.run(cmd, what)
        # Oclgrind reports the errors it finds (races, out-of-bounds) on stderr and carries on;
        # the kernels are correct, so anything there is a problem with the benchmark.
        if peer == "oclgrind" and p.stderr.strip():
            raise BenchError(f"{what}: Oclgrind reported errors:\n{p.stderr[:4000]}")
        self.verify(what, case, out)
        m = HOST_TIMING.search(p.stdout)
        return float(m.group(1)), float(m.group(3))

    def reference(self, bench, case):
        out = self.output(f"{bench.name}_cpp")
        inputs = [self.save(bench.name, i, value) for i, (kind, value) in enumerate(case.args)
                  if kind == "npy" and value.dtype == np.float32]
        p = self.run([self.reference_bin, bench.reference, str(1 if self.quick else 5), out, *inputs],
                     f"reference_loops {bench.name}")
        self.verify(f"C++ {bench.name}", case, out)
        return float(re.search(r"median_ms=([0-9.]+)", p.stdout).group(1))

    def measure_progress(self, bench, case, row):
        """The progress line's cost, two ways. Wall time: default checks (what every user gets) with
        the line forced on (--progress: redrawn on the captured pipe) against --quiet (no line, no
        progress calls), in alternating rounds so a change in the machine's load hits both alike;
        on this machine that ratio moves by more than the 1% it should show. CPU time: what the line
        adds is the work of two threads, the one redrawing it and the one waiting for the dispatch
        (woken every 100 ms to hand over the counts); `--timing` gives both, and the cost is their
        extra CPU time over the CPU time of the whole quiet run (every worker)."""
        log(f"{bench.name}: progress line on and off")
        quiet, shown, quiet_cpu, shown_cpu = [], [], [], []
        for _ in range(1 if self.quick else 5):
            quiet.append(self.mslsim(bench, case, "bounds,sync", workers=self.cores, extra=["--quiet"])[1])
            quiet_cpu.append(self.last_cpu)
            shown.append(self.mslsim(bench, case, "bounds,sync", workers=self.cores, extra=["--progress"])[1])
            shown_cpu.append(self.last_cpu)
        row["quiet"], row["progress"] = statistics.median(quiet), statistics.median(shown)
        # Each round's two runs are next to each other in time: the median of their ratios is less
        # exposed to the machine's drift than the ratio of the medians.
        row["progress_ratio"] = statistics.median(p / q for p, q in zip(shown, quiet))
        row["progress_cpu"] = row["ticker_cpu"] = None
        if all(quiet_cpu) and all(shown_cpu):
            # Medians of each part: one round's difference of waiting-thread times is mostly noise.
            median = lambda runs, i: statistics.median(r[i] for r in runs)
            process, ticker = median(quiet_cpu, 0), median(shown_cpu, 2)
            row["ticker_cpu"] = ticker / process
            row["progress_cpu"] = (ticker + median(shown_cpu, 1) - median(quiet_cpu, 1)) / process

    def measure_paths(self, bench, case, row):
        """The execution path each kernel takes unchecked (`--timing`'s path) and, for kernels with
        SIMD-group functions, a SIMD-group's lanes as vector lanes against every thread on its own
        (`--simd-lanes threads`, the path they took before), in alternating rounds on every core;
        with the C++ loop as the reference. The same two ways with the default checks (what every
        user runs), against `--check none`."""
        log(f"{bench.name}: execution paths")
        runs = {key: [] for key in ("vector", "threads", "checked", "checked_threads")}
        for _ in range(1 if self.quick else 3):
            for key, checks, extra in (("vector", "none", []), ("threads", "none", ["--simd-lanes", "threads"]),
                                       ("checked", "bounds,sync", []),
                                       ("checked_threads", "bounds,sync", ["--simd-lanes", "threads"])):
                runs[key].append(self.mslsim(bench, case, checks, workers=self.cores, repeats=1, extra=extra)[1])
                row[key + "_path"] = self.last_path
        for key, values in runs.items():
            row[key] = statistics.median(values)
        row["path"] = row["vector_path"]
        row["cpp"] = self.reference(bench, case)

    def measure_checked(self, bench, case, row):
        """`--check all` on one worker and on one per core. --check all: one worker by default
        (reports name the same threads every run); --workers N shares the checkers' state."""
        row["all1"] = self.mslsim(bench, case, "all", workers=1, repeats=1)[1]
        row["all2"] = self.mslsim(bench, case, "all", workers=self.cores, repeats=1)[1]

    def measure_grind(self, bench, case, row, modes=(("grind", False), ("grind_races", True))):
        grind_case = bench.make(bench.grind_quick if self.quick else bench.grind, np.random.default_rng(1))
        row["grind_case"] = grind_case
        scale = case.work / grind_case.work
        for key, races in modes:
            log(f"{bench.name}: Oclgrind{' --data-races' if races else ''} at {grind_case.label}")
            r = self.peer("oclgrind", bench, grind_case, data_races=races)
            row[key] = r if isinstance(r, str) else (r[0], r[1] * scale)
        row["scale"] = scale

    def measure(self, bench, progress_only=False, paths_only=False, checked_only=False):
        rng = np.random.default_rng(0)
        case = bench.make(bench.quick if self.quick else bench.full, rng)
        row = {"bench": bench, "case": case}
        if progress_only:
            self.measure_progress(bench, case, row)
            return row
        if paths_only:
            self.measure_paths(bench, case, row)
            return row
        if checked_only:
            log(f"{bench.name} at {case.label}: mslsim --check all")
            self.measure_checked(bench, case, row)
            self.measure_grind(bench, case, row, modes=(("grind_races", True),))
            return row
        log(f"{bench.name} at {case.label}: mslsim")
        row["compile_cold"], row["none2"] = self.mslsim(bench, case, "none", workers=self.cores)
        row["compile_cached"], row["none1"] = self.mslsim(bench, case, "none", workers=1)
        self.measure_checked(bench, case, row)
        if self.has_progress:
            self.measure_progress(bench, case, row)
        log(f"{bench.name}: C++, POCL")
        row["cpp"] = self.reference(bench, case)
        row["pocl"] = self.peer("pocl", bench, case)
        self.measure_grind(bench, case, row)
        return row


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def ms(v):
    if isinstance(v, str):
        return v
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def ratio(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return "n/a"
    r = a / b
    return f"{r:,.0f}x" if r >= 100 else f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


def peer_ms(r):
    return r if isinstance(r, str) else r[1]


def machine(runner):
    lines = []
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        field = lambda name: (re.search(rf"^{name}:\s*(.*)$", lscpu, re.M) or [None, "?"])[1].strip()
        hyper = re.search(r"Hypervisor vendor:\s*(.*)", lscpu)
        lines.append(f"CPU: {field('Model name')} (family {field('CPU family')}, model {field('Model')}), "
                     f"{os.cpu_count()} cores" + (f", {hyper.group(1).strip()} guest" if hyper else "")
                     + f"; L2 {field('L2 cache')}, L3 {field('L3 cache')}")
    except (OSError, AttributeError):
        lines.append(f"CPU: {platform.machine()}, {os.cpu_count()} cores")
    with open("/proc/meminfo") as f:
        lines.append(f"memory: {int(f.readline().split()[1]) // (1 << 20)} GiB; kernel {platform.release()}")
    try:
        with open("/etc/os-release") as f:
            lines.append(re.search(r'PRETTY_NAME="(.*)"', f.read()).group(1))
    except (OSError, AttributeError):
        pass
    # The revision of the tree the mslsim binary was built from (its CMake source directory).
    source = ROOT
    try:
        with open(os.path.join(runner.build, "CMakeCache.txt")) as f:
            source = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", f.read(), re.M).group(1)
    except (OSError, AttributeError):
        pass
    rev = subprocess.run(["git", "-C", source, "log", "-1", "--format=%h (%cs)"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", source, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    lines.append(f"mslsim: {rev}{' plus uncommitted changes' if dirty else ''}, source {source}, build {runner.build}")
    for peer, info in runner.peers.items():
        lines.append(f"{peer}: " + (info if isinstance(info, str) else f"{info['platform']}; {info['device']}"))
    return lines


def print_machine(runner, description, load_before, seconds):
    print("## Machine")
    print()
    for line in description:
        print(f"* {line}")
    print(f"* load average before the run: {load_before}; the run took {seconds:.0f} s"
          f"{' (--quick: small sizes, one repeat)' if runner.quick else ''}")
    print()


def print_tables(rows, runner):
    print("## Run time (ms, medians; every output verified against numpy)")
    print()
    one = "1 worker" if runner.has_workers else "1 core"
    many = f"{runner.cores} workers" if runner.has_workers else "default workers"
    print(("mslsim `--workers 1` and `--workers N`, N = cores. " if runner.has_workers else
           "mslsim 1 core = `taskset -c 0` (this build has no `--workers`); default = one worker per core. ") +
          "Oclgrind runs at the size in its column (with `--num-threads` = cores) and its time is multiplied by "
          f"the work ratio shown. Ratios use mslsim with {many}.")
    print()
    print(f"| kernel | size | C++ -O2 (1 thread) | POCL | mslsim none, {one} | mslsim none, {many} "
          f"| mslsim default checks, {many} | mslsim --check all, {one} | mslsim --check all, {many} "
          "| Oclgrind size (scale) | Oclgrind | Oclgrind --data-races | mslsim / POCL | mslsim / C++ "
          "| default checks / none | Oclgrind-dr / mslsim none | Oclgrind-dr / mslsim all |")
    print("|" + "---|" * 17)
    for r in rows:
        b, c = r["bench"], r["case"]
        grind_races = peer_ms(r["grind_races"])
        default = r.get("quiet", "n/a")  # the progress measurement's --quiet runs: default checks
        print(f"| {b.title} | {c.label} | {ms(r['cpp'])} | {ms(peer_ms(r['pocl']))} | {ms(r['none1'])} "
              f"| {ms(r['none2'])} | {ms(default)} | {ms(r['all1'])} | {ms(r['all2'])} "
              f"| {r['grind_case'].label} (x{r['scale']:g}) "
              f"| {ms(peer_ms(r['grind']))} | {ms(grind_races)} | {ratio(r['none2'], peer_ms(r['pocl']))} "
              f"| {ratio(r['none2'], r['cpp'])} | {ratio(default, r['none2'])} | {ratio(grind_races, r['none2'])} "
              f"| {ratio(grind_races, r['all2'])} |")
    print()
    print("## Compile time (ms)")
    print()
    print("mslsim: `compile_ms` from `--timing` in a new process, with an empty compile cache (cold) and with the "
          "kernel in the on-disk cache (cached). POCL: clBuildProgram with an empty kernel cache (its per-local-size "
          "code generation happens at the first enqueue, not counted). Oclgrind: clBuildProgram.")
    print()
    print("| kernel | mslsim cold | mslsim cached | POCL build | Oclgrind build |")
    print("|---|---|---|---|---|")
    seen = set()
    for r in rows:
        b = r["bench"]
        if b.metal in seen:
            continue
        seen.add(b.metal)
        pocl = r["pocl"] if isinstance(r["pocl"], str) else ms(r["pocl"][0])
        grind = r["grind"] if isinstance(r["grind"], str) else ms(r["grind"][0])
        print(f"| {b.metal}.metal / .cl | {ms(r['compile_cold'])} | {ms(r['compile_cached'])} | {pocl} | {grind} |")
    if runner.has_progress:
        print()
        print_progress(rows, runner)


def print_paths(rows, runner):
    print("## Execution paths (ms)")
    print()
    print(f"mslsim on {runner.cores} workers, medians of {1 if runner.quick else 3} alternating rounds, `--check none`: "
          "the path `--timing` names, against `--simd-lanes threads` (every thread on its own: for kernels with "
          "SIMD-group functions, the path they took before the vector lanes); the C++ loop as the reference.")
    print()
    print("| kernel | size | path | ms | `--simd-lanes threads` path | ms | speed-up | C++ loop | mslsim / C++ |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['bench'].title} | {r['case'].label} | {r['path']} | {ms(r['vector'])} | {r['threads_path']} "
              f"| {ms(r['threads'])} | {ratio(r['threads'], r['vector'])} | {ms(r['cpp'])} "
              f"| {ratio(r['vector'], r['cpp'])} |")
    print()
    print("The default checks (`bounds,sync`) the same two ways, against `--check none` above:")
    print()
    print("| kernel | path | ms | default / none | `--simd-lanes threads` path | ms | default threads / none |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['bench'].title} | {r['checked_path']} | {ms(r['checked'])} | {ratio(r['checked'], r['vector'])} "
              f"| {r['checked_threads_path']} | {ms(r['checked_threads'])} | {ratio(r['checked_threads'], r['vector'])} |")


def print_progress(rows, runner):
    many = f"{runner.cores} workers" if runner.has_workers else "default workers"
    print("## Progress line cost (ms)")
    print()
    print(f"mslsim default checks (`--check bounds,sync`), {many}: `--quiet` (no line, no progress calls) "
          "against `--progress` (the line redrawn five times a second on stderr, here a pipe), medians of "
          f"{1 if runner.quick else 5} alternating rounds; the wall-time cost is the median of the rounds' ratios. "
          "The CPU cost is the CPU time the line's two threads add (the one redrawing it, `--timing`'s "
          "`progress_cpu_ms`, and the one waiting for the dispatch, `waiting_cpu_ms`, against its time in the "
          "`--quiet` runs), over the CPU time of the whole `--quiet` dispatch (`dispatch_cpu_ms`, every worker): "
          "medians of the rounds, and the redrawing thread's share alone. The line appears only after half a "
          "second of work.")
    print()
    print("| kernel | size | --quiet | --progress | wall-time cost | CPU cost | redrawing thread |")
    print("|---|---|---|---|---|---|---|")
    pct = lambda v: "n/a" if v is None else f"{v * 100:+.3f}%"
    for r in rows:
        cost = (r["progress_ratio"] - 1) * 100
        print(f"| {r['bench'].title} | {r['case'].label} | {ms(r['quiet'])} | {ms(r['progress'])} | {cost:+.1f}% "
              f"| {pct(r['progress_cpu'])} | {pct(r['ticker_cpu'])} |")


def print_checked(rows, runner):
    one = "1 worker" if runner.has_workers else "1 core"
    many = f"{runner.cores} workers" if runner.has_workers else "default workers"
    print(f"mslsim `--check all` (one dispatch each) against Oclgrind `--data-races` (one run at the size in its "
          f"column, scaled to the mslsim size by work). Milliseconds.")
    print()
    print(f"| kernel | size | mslsim --check all, {one} | mslsim --check all, {many} | Oclgrind size (scale) "
          f"| Oclgrind --data-races | Oclgrind-dr / mslsim all ({many}) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        grind_ms = peer_ms(r["grind_races"])
        print(f"| {r['bench'].title} | {r['case'].label} | {ms(r['all1'])} | {ms(r['all2'])} "
              f"| {r['grind_case'].label} ({r['scale']:g}x) | {ms(grind_ms)} | {ratio(grind_ms, r['all2'])} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat: a smoke run")
    parser.add_argument("--only", nargs="+", choices=[b.name for b in BENCHES], help="run only these kernels")
    parser.add_argument("--progress-only", action="store_true",
                        help="measure only what the progress line costs (mslsim runs only)")
    parser.add_argument("--paths-only", action="store_true",
                        help="only the path each kernel takes (unchecked and with the default checks), against --simd-lanes threads, and the C++ loop")
    parser.add_argument("--checked-only", action="store_true",
                        help="only `--check all` (one worker and one per core) against Oclgrind --data-races")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    load_before = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="mslsim-bench-") as tmp:
        runner = Runner(build, tmp, args.quick)
        description = machine(runner)  # before the run: the tree may change while it runs
        try:
            rows = [runner.measure(b, args.progress_only, args.paths_only, args.checked_only) for b in BENCHES
                    if not args.only or b.name in args.only]
        except BenchError as e:
            sys.exit(f"bench: {e}")
    print_machine(runner, description, load_before, time.time() - start)
    if args.progress_only:
        print_progress(rows, runner)
    elif args.paths_only:
        print_paths(rows, runner)
    elif args.checked_only:
        print_checked(rows, runner)
    else:
        print_tables(rows, runner)


if __name__ == "__main__":
    main()
