#!/usr/bin/env python3
"""Random kernels (kernelgen.py) run by mslsim under several execution paths and by POCL.

For each seed: the generated MSL kernel runs through `mslsim run` under the paths below, and its
OpenCL C twin through POCL (bench's opencl_host) unless it is MSL-only; every output (each thread's
hash, the device atomics) must be the same bits as the generator's own Python reference
(kernelgen.Program.reference) everywhere, and no checked run may report anything (the kernels are
race-free and in bounds by construction). A failing seed is reduced (statements dropped one at a
time while the failure stays) and printed with its reduced kernel.

Usage: run_fuzz.py MSLSIM --opencl-host PATH [--seeds FIRST:COUNT] [--jobs N] [--keep DIR]
Without --opencl-host (or without POCL) the paths are compared with each other only.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernelgen  # noqa: E402

PATHS = [
    ("default", ["--check", "bounds,sync"]),
    ("none", ["--check", "none"]),
    ("all", ["--check", "all"]),
    ("all-reverse", ["--check", "all", "--schedule", "reverse"]),
    ("none-random", ["--check", "none", "--schedule", "random:5"]),
    ("workers-2", ["--check", "bounds,sync", "--workers", "2"]),
]


def run_mslsim(mslsim, program, work, args):
    outs = [os.path.join(work, "out%d.npy" % i) for i in range(2)]
    cmd = [mslsim, "run", os.path.join(work, "kernel.metal"), "--kernel", "k", "--grid", str(program.grid),
           "--threadgroup", str(program.tg), "--buffer", "0=zeros:uint32:%d" % program.grid,
           "--buffer", "1=zeros:uint32:%d" % kernelgen.COUNTERS, "--buffer", "2=" + os.path.join(work, "in.npy"),
           "--output", "0=" + outs[0], "--output", "1=" + outs[1], "--timeout", "60"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
    # Compiler warnings (`2u ^ 1u`) are the generator's style, and SIMD-group functions in divergent
    # code are meant (the simd-divergence warning says so); any other finding is a failure.
    findings = [line for line in p.stderr.splitlines()
                if line.startswith(("error [", "warning [")) and not line.startswith("warning [simd-divergence]")]
    if p.returncode != 0 or findings:
        return None, "exit %d: %s" % (p.returncode, "\n".join(findings or p.stderr.strip().splitlines())[:600])
    return tuple(np.load(o).tobytes() for o in outs), None


def run_pocl(host, program, work):
    outs = [os.path.join(work, "cl%d.npy" % i) for i in range(2)]
    cmd = [host, "--platform", "pocl", "--file", os.path.join(work, "kernel.cl"), "--kernel", "k",
           "--global", str(program.grid), "--local", str(program.tg),
           "--arg", "zeros:uint32:%d" % program.grid, "--arg", "zeros:uint32:%d" % kernelgen.COUNTERS,
           "--arg", "npy:" + os.path.join(work, "in.npy"), "--output", "0=" + outs[0], "--output", "1=" + outs[1],
           "--repeat", "1", "--warmup", "0"]  # one run: the atomics accumulate
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
    if p.returncode != 0:
        return None, "POCL exit %d: %s" % (p.returncode, (p.stderr + p.stdout).strip()[:600])
    return tuple(np.load(o).tobytes() for o in outs), None


def failure(program, mslsim, host, work):
    """Why `program` fails (a string), or None when every path and POCL agree."""
    with open(os.path.join(work, "kernel.metal"), "w") as f:
        f.write(program.emit("msl"))
    if not program.msl_only:
        with open(os.path.join(work, "kernel.cl"), "w") as f:
            f.write(program.emit("opencl"))
    np.save(os.path.join(work, "in.npy"), np.array(program.inputs, dtype=np.uint32))
    hashes, counters = program.reference()
    reference, name = (hashes.tobytes(), counters.tobytes()), "the Python reference"
    if host and not program.msl_only:
        got, error = run_pocl(host, program, work)
        if error:
            return error
        if got != reference:
            return "POCL's %s differ from the Python reference" % ("thread hashes" if got[0] != reference[0] else "atomics")
    for path, args in PATHS:
        got, error = run_mslsim(mslsim, program, work, args)
        if error:
            return "[%s] %s" % (path, error)
        if got != reference:
            which = "thread hashes" if got[0] != reference[0] else "atomics"
            return "[%s] %s differ from %s" % (path, which, name)
    return None


def reduce(program, mslsim, host, work):
    """Drops statements one at a time while the program still fails."""
    changed = True
    while changed:
        changed = False
        for victim in reversed(program.statements()):
            smaller = program.without(victim)
            if failure(smaller, mslsim, host, work):
                program, changed = smaller, True
                break
    return program


def check_seed(seed, mslsim, host, keep):
    work = tempfile.mkdtemp(prefix="mslsim-fuzz-")
    try:
        program = kernelgen.Program(seed)
        why = failure(program, mslsim, host, work)
        if not why:
            return seed, None, program.msl_only
        small = reduce(program, mslsim, host, work)
        if keep:
            os.makedirs(keep, exist_ok=True)
            for lang, ext in (("msl", "metal"),) + ((("opencl", "cl"),) if not small.msl_only else ()):
                with open(os.path.join(keep, "seed%d.%s" % (seed, ext)), "w") as f:
                    f.write(small.emit(lang))
        return seed, why, small.emit("msl")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mslsim")
    ap.add_argument("--opencl-host", help="bench's opencl_host (POCL as the reference)")
    ap.add_argument("--seeds", default="1:40", help="FIRST:COUNT")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="directory for the reduced kernels of failing seeds")
    opts = ap.parse_args()
    first, count = (int(v) for v in opts.seeds.split(":"))
    mslsim = os.path.abspath(opts.mslsim)
    host = opts.opencl_host
    if host:
        probe = subprocess.run([host, "--platform", "pocl", "--info"], capture_output=True, text=True)
        if probe.returncode != 0:
            print("POCL is not available (%s): comparing mslsim's paths only" % probe.stderr.strip()[:200])
            host = None
    failed = []
    simd = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for seed, why, kernel in pool.map(lambda s: check_seed(s, mslsim, host, opts.keep), range(first, first + count)):
            if not why:
                simd += bool(kernel)
            if why:
                failed.append(seed)
                print("seed %d: %s\n  reduced kernel:\n%s" % (seed, why, "\n".join("    " + l for l in kernel.splitlines())))
    reference = "POCL and " if host else ""
    print("%d generated kernels (%d passing MSL-only ones: SIMD- and quad-group functions, half, bfloat), "
          "each compared with the Python reference under %s%d mslsim paths (%s): %d failed%s"
          % (count, simd, reference, len(PATHS), ", ".join(p for p, _ in PATHS), len(failed),
             " (seeds %s)" % ", ".join(map(str, failed)) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
