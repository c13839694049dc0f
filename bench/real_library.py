#!/usr/bin/env python3
"""Time to first result on a real kernel library: one kernel of MLX's binary.metal (4,122 kernels),
run with an empty compile cache and again from the cache, `mslsim compile` (the listing) of
every MLX translation unit, and native code for five kernels (`--compare OTHER_MSLSIM` times
another build too). Targets (issue 12): the cold run at most 5 s and 1 GB peak memory,
the cached run at most 0.2 s, every listing at most 20 s.

Usage: /usr/bin/python3 bench/real_library.py --mlx MLX_CHECKOUT [--build build] [--compare OTHER_MSLSIM]

The output of the run is checked against numpy (a + b) before its time counts. Peak memory is the
child's maximum resident set (getrusage)."""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


# Kernels of MLX's default library compiled to native code: a GEMM (coroutine, region loop), a
# matrix-vector product, a reduction, an FFT (many inlined radix steps) and an element-wise op.
NATIVE_CODE_KERNELS = [
    ("steel/gemm/kernels/steel_gemm_fused.metal", "steel_gemm_fused_nn_float32_float32_bm64_bn64_bk16_wm2_wn2"),
    ("gemv.metal", "gemv_float32_bm1_bn8_sm1_sn32_tm4_tn4_nc0_axpby0"),
    ("reduce.metal", "row_reduce_looped_1_reduce_sumfloat32"),
    ("fft.metal", "fft_mem_256_float2_float2"),
    ("unary.metal", "v_Expfloat32float32"),
]


def timed(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-3000:]))
    return seconds, peak_kb if peak_kb > before else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mlx", required=True)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--compare", help="another build's mslsim binary, to time the same native-code compiles")
    opts = ap.parse_args()
    mslsim = os.path.abspath(os.path.join(opts.build, "bin", "mslsim"))
    kernels = os.path.join(opts.mlx, "mlx", "backend", "metal", "kernels")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MSLSIM_CACHE_DIR=os.path.join(tmp, "cache"))
        n = 1 << 16
        a = np.random.default_rng(1).standard_normal(n).astype(np.float32)
        b = np.random.default_rng(2).standard_normal(n).astype(np.float32)
        np.save(os.path.join(tmp, "a.npy"), a)
        np.save(os.path.join(tmp, "b.npy"), b)
        out = os.path.join(tmp, "c.npy")
        run = [mslsim, "run", os.path.join(kernels, "binary.metal"), "-I", opts.mlx, "--kernel", "vv_Addfloat32",
               "--grid", str(n), "--threadgroup", "256", "--buffer", "0=" + os.path.join(tmp, "a.npy"),
               "--buffer", "1=" + os.path.join(tmp, "b.npy"), "--buffer", f"2=zeros:float32:{n}",
               "--buffer", f"3=scalar:uint32:{n}", "--output", "2=" + out]
        cold, cold_kb = timed(run, env)
        np.testing.assert_array_equal(np.load(out), a + b)
        warm, _ = timed(run, env)
        np.testing.assert_array_equal(np.load(out), a + b)
        print("| measure | value | target |")
        print("|---|---|---|")
        print("| binary.metal vv_Addfloat32, empty cache | %.2f s, %s MB peak | 5 s, 1,024 MB |"
              % (cold, "%.0f" % (cold_kb / 1024) if cold_kb else "?"))
        print("| the same from the cache | %.3f s | 0.2 s |" % warm)
        listings = []
        for dirpath, _, files in os.walk(kernels):
            for f in sorted(files):
                if f.endswith(".metal") and not f.endswith("_nax.metal"):
                    path = os.path.join(dirpath, f)
                    seconds, _ = timed([mslsim, "compile", path, "-I", opts.mlx], env)
                    listings.append((seconds, os.path.relpath(path, kernels)))
        listings.sort(reverse=True)
        print("| `mslsim compile` of %d MLX files, slowest | %.1f s (%s) | 20 s |"
              % (len(listings), listings[0][0], listings[0][1]))
        print("| the same, all files | %.1f s | |" % sum(s for s, _ in listings))

        # Native code for single kernels (what MLX's Metal backend waits for at each new pipeline),
        # with the default checks, each new to the cache; with --compare, the same by another
        # build, each in a cache of its own, and the ratio.
        print()
        print("| kernel, to native code (empty cache) | seconds | %s |"
              % ("seconds, " + opts.compare + " | ratio" if opts.compare else "—"))
        print("|---|---|---|" + ("---|" if opts.compare else ""))
        builds = [(mslsim, env)]
        if opts.compare:
            builds.append((os.path.abspath(opts.compare), dict(env, MSLSIM_CACHE_DIR=os.path.join(tmp, "compare"))))
        for file, kernel in NATIVE_CODE_KERNELS:
            times = []
            for binary, build_env in builds:
                seconds, _ = timed([binary, "compile", os.path.join(kernels, file), "-I", opts.mlx,
                                    "--kernel", kernel], build_env)
                times.append(seconds)
            row = "| %s `%s` | %.2f |" % (file, kernel, times[0])
            row += " %.2f | %.2f |" % (times[1], times[1] / times[0]) if opts.compare else " |"
            print(row)


if __name__ == "__main__":
    main()
