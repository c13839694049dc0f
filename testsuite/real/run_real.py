#!/usr/bin/env python3
"""Runs real kernels of MLX's kernel library and of ggml-metal the way their host code dispatches
them (kernel names, buffers and struct arguments by index, function constants, grid sizes, all
read from mlx/backend/metal/*.cpp and ggml-metal-ops.cpp) through `mslsim run`, and checks every
output against numpy. Each case runs under the default checks and under `--check all` (with
`--checks none,threads`: unchecked, as vector lanes and thread by thread); a finding fails the case (it is a false positive of ours, or a bug in the project, described in
docs/real-msl.md).

    run_real.py MSLSIM [--mlx DIR] [--ggml DIR] [--checks default,all] [-k SUBSTRING]
                       [--jobs N] [--timeout S] [--skip-status N] [--list] [--verbose]

The checkouts come from the options or from $MSLSIM_MLX_DIR and $MSLSIM_GGML_DIR; a corpus without
one is skipped and says so. Exit status: 0 all cases ran and matched, 1 something failed, 2 bad
usage, --skip-status (ctest's SKIP_RETURN_CODE) when no checkout was given at all.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import realkernels  # noqa: E402
import mlx_cases  # noqa: E402,F401  (registers the MLX cases)
import mlx_matmul_cases  # noqa: E402,F401  (MLX matrix products, quantized, attention)
import ggml_cases  # noqa: E402,F401  (registers the ggml cases)

ENV = {"mlx": "MSLSIM_MLX_DIR", "ggml": "MSLSIM_GGML_DIR"}
# "none" runs kernels with SIMD-group functions as vector lanes (a SIMD-group's lanes the lanes of
# vector instructions); "threads" runs every thread on its own, the path the checked modes take.
CHECKS = {"default": [], "all": ["--check", "all"], "none": ["--check", "none"],
          "threads": ["--check", "none", "--simd-lanes", "threads"]}


def constant_text(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(int(value))


def command(mslsim, root, d, tmp, checks):
    cmd = [mslsim, "run", os.path.join(root, d.source), "--kernel", d.kernel,
           "--grid", ",".join(map(str, d.grid)), "--threadgroup", ",".join(map(str, d.threadgroup)),
           "--dispatch", d.dispatch, "--timing"] + CHECKS[checks]
    for inc in d.includes:
        cmd += ["-I", os.path.join(root, inc)]
    for index, array in sorted(d.buffers.items()):
        if isinstance(array, realkernels.View):
            cmd += ["--buffer", "%d=@%d+%d" % (index, array.of, array.offset)]
            continue
        path = os.path.join(tmp, "in%d.npy" % index)
        np.save(path, np.ascontiguousarray(array))
        cmd += ["--buffer", "%d=%s" % (index, path)]
    for index in d.outputs:
        cmd += ["--output", "%d=%s" % (index, os.path.join(tmp, "out%d.npy" % index))]
    for index, value in sorted(d.constants.items()):
        cmd += ["--constant", "%d=%s" % (index, constant_text(value))]
    for index, size in sorted(d.threadgroup_memory.items()):
        cmd += ["--threadgroup-memory", "%d=%d" % (index, size)]
    return cmd


def run_case(mslsim, roots, c, checks, timeout, seed):
    """-> (status, seconds, detail, path) with status ok | FAIL | xfail | XPASS and the execution
    path `--timing` named."""
    start = time.monotonic()
    path = ""
    with tempfile.TemporaryDirectory(prefix="mslsim-real-") as tmp:
        try:
            d, check = c.build(np.random.default_rng(seed))
            cmd = command(mslsim, roots[c.corpus], d, tmp, checks)
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout)
            found = re.search(r'path="([^"]*)"', p.stderr)
            path = found.group(1) if found else ""
            if p.returncode != 0:
                raise AssertionError("mslsim exited %d:\n%s" % (p.returncode, p.stderr.strip()))
            outputs = {i: np.load(os.path.join(tmp, "out%d.npy" % i)) for i in d.outputs}
            check(outputs)
            ok, detail = True, ""
        except subprocess.TimeoutExpired:
            ok, detail = False, "timed out after %d s" % timeout
        except AssertionError as e:
            ok, detail = False, str(e).strip()
        except Exception:
            ok, detail = False, traceback.format_exc()
    seconds = time.monotonic() - start
    if c.xfail and checks in c.xfail_checks:
        return ("XPASS" if ok else "xfail"), seconds, detail if not ok else "expected to fail: " + c.xfail, path
    return ("ok" if ok else "FAIL"), seconds, detail, path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mslsim")
    ap.add_argument("--mlx")
    ap.add_argument("--ggml")
    ap.add_argument("--checks", default="default,all", help="comma list of: " + ", ".join(CHECKS))
    ap.add_argument("-k", dest="only", help="only cases whose name contains this")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-status", type=int, default=0)
    ap.add_argument("--list", action="store_true", help="list the cases and stop")
    ap.add_argument("--verbose", action="store_true", help="print the failure detail of xfail cases too")
    opts = ap.parse_args()

    checks = [c for c in opts.checks.split(",") if c]
    if any(c not in CHECKS for c in checks):
        print("--checks takes a comma list of: " + ", ".join(CHECKS), file=sys.stderr)
        return 2
    cases = [c for c in realkernels.CASES if not opts.only or opts.only in c.name]
    if opts.list:
        for c in cases:
            print("%-5s %s%s" % (c.corpus, c.name, "  (xfail under %s: %s)" % ("/".join(c.xfail_checks), c.xfail)
                                 if c.xfail else ""))
        return 0

    roots = {}
    for corpus, env in ENV.items():
        root = getattr(opts, corpus) or os.environ.get(env)
        if not root:
            print("%s: skipped (no checkout: pass --%s DIR or set %s)" % (corpus, corpus, env))
            continue
        if not os.path.isdir(root):
            print("%s: %s is not a directory" % (corpus, root), file=sys.stderr)
            return 2
        roots[corpus] = root
    if not roots:
        return opts.skip_status
    mslsim = os.path.abspath(opts.mslsim)
    todo = [(c, k) for c in cases if c.corpus in roots for k in checks]

    def one(item):
        c, k = item
        return c, k, run_case(mslsim, roots, c, k, opts.timeout, opts.seed)

    counts = {}
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for c, k, (status, seconds, detail, path) in pool.map(one, todo):
            counts[status] = counts.get(status, 0) + 1
            print("%-5s %-7s %-48s %-8s %6.1f s  %s" % (c.corpus, k, c.name, status, seconds, path), flush=True)
            if status in ("FAIL", "XPASS") or (opts.verbose and detail):
                for line in detail.splitlines()[:40]:
                    print("      " + line)
    print("; ".join("%d %s" % (n, s) for s, n in sorted(counts.items())) or "no cases")
    return 1 if counts.get("FAIL") or counts.get("XPASS") else 0


if __name__ == "__main__":
    sys.exit(main())
