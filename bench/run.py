#!/usr/bin/env python3
"""Benchmarks mslsim against plain single-threaded C++ loops compiled -O2, in one run on one machine.

Usage: /usr/bin/python3 bench/run.py [--build build] [--quick]
Each mslsim run is checked against numpy before its time counts. Prints a Markdown table."""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIMING = re.compile(r"timing: compile_ms=([0-9.]+) dispatch_ms_median=([0-9.]+) dispatch_ms_min=([0-9.]+)")


def mslsim(build, args, checks="none"):
    p = subprocess.run([os.path.join(build, "bin", "mslsim"), "run", *args, "--repeat", "3", "--timing",
                        "--check", checks], capture_output=True, text=True, env=ENV)
    if p.returncode != 0:
        sys.exit("mslsim failed: " + p.stderr)
    m = TIMING.search(p.stderr)
    return float(m.group(1)), float(m.group(2))


def reference(build, which, n):
    p = subprocess.run([os.path.join(build, "bench", "reference_loops"), which, str(n)],
                       capture_output=True, text=True, check=True)
    return float(re.search(r"median_ms=([0-9.]+)", p.stdout).group(1))


ENV = dict(os.environ)  # MSLSIM_CACHE_DIR is set to a fresh directory in main()


def cached_compile_ms(build, args):
    """Compile time of a second process: the kernel comes from the on-disk cache."""
    return mslsim(build, args)[0]


def checked_times(build, args):
    """Dispatch times with the default checks (bounds,sync) and with every check."""
    return [mslsim(build, args, checks)[1] for checks in ("bounds,sync", "all")]


def softcap(build, tmp, n):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(n) * 10).astype(np.float32)
    np.save(os.path.join(tmp, "x.npy"), x)
    out = os.path.join(tmp, "y.npy")
    args = [
        os.path.join(ROOT, "examples", "soft_cap", "kernel.metal"), "--kernel", "soft_cap",
        "--grid", str(n), "--threadgroup", "256",
        "--buffer", "0=" + os.path.join(tmp, "x.npy"), "--buffer", f"1=zeros:float32:{n}",
        "--buffer", "2=scalar:float32:5.0", "--buffer", f"3=scalar:uint32:{n}", "--output", "1=" + out]
    compile_ms, run_ms = mslsim(build, args)
    expected = 5.0 * np.tanh(x.astype(np.float64) / 5.0)
    if not np.allclose(np.load(out), expected, rtol=2e-6, atol=1e-6):
        sys.exit("soft cap: mslsim's output does not match numpy")
    return compile_ms, cached_compile_ms(build, args), run_ms, reference(build, "softcap", n), *checked_times(build, args)


def gemm(build, tmp, n):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    np.save(os.path.join(tmp, "a.npy"), a)
    np.save(os.path.join(tmp, "b.npy"), b)
    np.save(os.path.join(tmp, "shape.npy"), np.array([n, n, n], dtype=np.uint32))
    out = os.path.join(tmp, "c.npy")
    groups = (n + 15) // 16
    args = [
        os.path.join(ROOT, "examples", "tiled_gemm_16x16", "kernel.metal"), "--kernel", "gemm_tiled_16x16",
        "--dispatch", "threadgroups", "--grid", f"{groups},{groups}", "--threadgroup", "16,16",
        "--buffer", "0=" + os.path.join(tmp, "a.npy"), "--buffer", "1=" + os.path.join(tmp, "b.npy"),
        "--buffer", f"2=zeros:float32:{n * n}", "--buffer", "3=" + os.path.join(tmp, "shape.npy"),
        "--output", "2=" + out]
    compile_ms, run_ms = mslsim(build, args)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    if not np.allclose(np.load(out).reshape(n, n), expected, rtol=1e-4, atol=1e-3):
        sys.exit("gemm: mslsim's output does not match numpy")
    return compile_ms, cached_compile_ms(build, args), run_ms, reference(build, "gemm", n), *checked_times(build, args)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    softcap_n = 1 << 20 if args.quick else 16 << 20
    gemm_n = 128 if args.quick else 512
    with tempfile.TemporaryDirectory() as tmp:
        ENV["MSLSIM_CACHE_DIR"] = os.path.join(tmp, "cache")
        rows = [(f"soft cap, {softcap_n} floats", *softcap(args.build, tmp, softcap_n)),
                (f"tiled SGEMM 16x16, {gemm_n}x{gemm_n}", *gemm(args.build, tmp, gemm_n))]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; mslsim with one worker per core "
          f"(one worker with races/uninit checks)")
    print()
    print("| kernel | compile ms cold / cached | dispatch ms, --check none | C++ -O2 loop ms (1 thread) "
          "| mslsim / C++ | default checks (bounds,sync) | --check all |")
    print("|---|---|---|---|---|---|---|")
    for name, compile_ms, cached_ms, run_ms, ref_ms, default_ms, all_ms in rows:
        print(f"| {name} | {compile_ms:.0f} / {cached_ms:.1f} | {run_ms:.1f} | {ref_ms:.1f} | {run_ms / ref_ms:.2f}x "
              f"| {default_ms:.1f} ({default_ms / run_ms:.1f}x) | {all_ms:.1f} ({all_ms / run_ms:.1f}x) |")


if __name__ == "__main__":
    main()
