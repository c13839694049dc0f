#!/usr/bin/env python3
"""Compiles the real MSL corpora with `mslsim compile` and reports, per corpus, how many translation
units the front end accepts, with the first error of each one it refuses and the time each took.

    compile_real.py MSLSIM [--mlx DIR] [--ggml DIR] [--spirv-cross DIR] [--jobs N] [--timeout S]
                           [--only SUBSTRING] [--require-all] [--json OUT] [--skip-status N]
                           [--generate [CHECKS]] [--tier TIER] [--split N]

With --generate, every kernel of every file is also compiled to native code (`mslsim compile FILE
--kernel '*' --check CHECKS --tier TIER`, default checks and the optimised tier when not given), so
that a kernel nobody dispatches cannot hide a gap in code generation; the count of kernels
generated is reported. --split N lists a file's kernels first and generates them in N parts, one
process each (the way to use every core on one large library such as ggml-metal.metal).

The checkouts come from the options or from $MSLSIM_MLX_DIR, $MSLSIM_GGML_DIR and
$MSLSIM_SPIRV_CROSS_DIR; a corpus without a checkout is skipped and says so. Nothing of the
checkouts is copied anywhere. With --require-all the exit status is 1 unless every file compiles
(MLX's `*_nax.metal` files may instead fail with the one "not supported: MetalPerformancePrimitives"
error), so ctest can hold the line once a corpus is clean.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def mlx_units(root):
    kernels = os.path.join(root, "mlx", "backend", "metal", "kernels")
    for dirpath, _, files in sorted(os.walk(kernels)):
        for f in sorted(files):
            if f.endswith(".metal"):
                yield os.path.join(dirpath, f), ["-I", root]


def ggml_units(root):
    src = os.path.join(root, "src")
    path = os.path.join(src, "ggml-metal", "ggml-metal.metal")
    if os.path.exists(path):
        yield path, ["-I", src, "-I", os.path.join(src, "ggml-metal")]


# SPIRV-Cross compute references that use no textures, samplers, argument buffers (descriptor
# sets as structs of resources) or ray-tracing resources: what a compute-kernel simulator is for.
# (An include of <metal_raytracing> is refused with a "not supported" error.)
SPIRV_EXCLUDE = re.compile(r"texture\w*<|\bsampler\b|spvDescriptorSet|\[\[id\(|metal_raytracing")


def spirv_units(root):
    ref = os.path.join(root, "reference")
    for d in sorted(os.listdir(ref)):
        comp = os.path.join(ref, d, "comp")
        if not d.startswith("shaders-msl") or not os.path.isdir(comp):
            continue
        for f in sorted(os.listdir(comp)):
            path = os.path.join(comp, f)
            if not f.endswith(".comp"):
                continue
            with open(path, errors="replace") as fh:
                if SPIRV_EXCLUDE.search(fh.read()):
                    continue
            yield path, []


CORPORA = [("mlx", "MSLSIM_MLX_DIR", mlx_units), ("ggml", "MSLSIM_GGML_DIR", ggml_units),
           ("spirv-cross", "MSLSIM_SPIRV_CROSS_DIR", spirv_units)]

UNSUPPORTED_MPP = "not supported: MetalPerformancePrimitives"


def kernel_names(mslsim, path, args, timeout):
    p = subprocess.run([mslsim, "compile", path] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, errors="replace", timeout=timeout)
    return [l.split()[1] for l in p.stdout.splitlines() if l.startswith("kernel ")]


def compile_one(mslsim, path, args, timeout, generate=None, tier=None, kernels=None):
    start = time.monotonic()
    if generate is not None:
        chosen = sum((["--kernel", k] for k in kernels), []) if kernels else ["--kernel", "*"]
        args = args + chosen + (["--check", generate] if generate else []) + (["--tier", tier] if tier else [])
    try:
        p = subprocess.run([mslsim, "compile", path] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=timeout)
        seconds = time.monotonic() - start
    except subprocess.TimeoutExpired:
        return {"path": path, "ok": False, "seconds": timeout, "error": "timed out after %d s" % timeout}
    kernels = sum(1 for l in p.stdout.splitlines() if l.startswith("kernel "))
    errors = [l for l in p.stderr.splitlines() if ": error: " in l or l.startswith("error")]
    first = errors[0] if errors else (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]
    return {"path": path, "ok": p.returncode == 0, "seconds": round(seconds, 2), "kernels": kernels,
            "exit": p.returncode, "error": None if p.returncode == 0 else first,
            "errors": len(errors)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mslsim")
    ap.add_argument("--mlx")
    ap.add_argument("--ggml")
    ap.add_argument("--spirv-cross", dest="spirv_cross")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--only", help="only files whose path contains this")
    ap.add_argument("--require-all", action="store_true")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--generate", nargs="?", const="", default=None, metavar="CHECKS",
                    help="also generate native code for every kernel (with these checks; default checks)")
    ap.add_argument("--tier", help="with --generate: optimised (default) or quick")
    ap.add_argument("--split", type=int, default=1, help="with --generate: each file's kernels in this many processes")
    ap.add_argument("--skip-status", type=int, default=0,
                    help="exit status when no checkout is given (ctest's SKIP_RETURN_CODE)")
    opts = ap.parse_args()

    roots = {"mlx": opts.mlx, "ggml": opts.ggml, "spirv-cross": opts.spirv_cross}
    all_results = {}
    failed_required = 0
    ran_any = False
    for name, env, units in CORPORA:
        root = roots[name] or os.environ.get(env)
        if not root:
            print("%s: skipped (no checkout: pass --%s DIR or set %s)" % (name, name, env))
            continue
        if not os.path.isdir(root):
            print("%s: %s is not a directory" % (name, root))
            return 2
        ran_any = True
        todo = [(p, a, None) for p, a in units(root) if not opts.only or opts.only in p]
        if opts.generate is not None and opts.split > 1:
            parts = []
            for p, a, _ in todo:
                names = kernel_names(opts.mslsim, p, a, opts.timeout)
                groups = [names[k::opts.split] for k in range(opts.split)] if len(names) > opts.split else [None]
                parts += [(p, a, g) for g in groups]
            todo = parts
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            parts = list(pool.map(lambda u: compile_one(opts.mslsim, u[0], u[1], opts.timeout, opts.generate,
                                                        opts.tier, u[2]), todo))
        wall = time.monotonic() - started
        # A file generated in parts is one result: ok if every part is, its time the parts' sum.
        results, by_path = [], {}
        for r in parts:
            if r["path"] not in by_path:
                by_path[r["path"]] = dict(r)
                results.append(by_path[r["path"]])
                continue
            merged = by_path[r["path"]]
            merged["seconds"] = round(merged["seconds"] + r["seconds"], 2)
            merged["kernels"] = merged.get("kernels", 0) + r.get("kernels", 0)
            if not r["ok"] and merged["ok"]:
                merged.update(ok=False, error=r["error"], exit=r["exit"])
        all_results[name] = results
        ok = sum(r["ok"] for r in results)
        mpp = [r for r in results if not r["ok"] and r["path"].endswith("_nax.metal")
               and UNSUPPORTED_MPP in (r["error"] or "")]
        print("%s: %d of %d files %s (%d more refused with the MetalPerformancePrimitives error); "
              "%d kernels%s; %.1f s of processes, %.1f s of wall time, slowest file %.1f s" % (
                  name, ok, len(results), "generate code" if opts.generate is not None else "compile", len(mpp),
                  sum(r.get("kernels", 0) for r in results if r["ok"]),
                  " generated" if opts.generate is not None else "", sum(r["seconds"] for r in results), wall,
                  max([r["seconds"] for r in results] or [0])))
        for r in results:
            rel = os.path.relpath(r["path"], root)
            if r["ok"]:
                print("  ok    %6.1f s  %5d kernels  %s" % (r["seconds"], r["kernels"], rel))
            else:
                print("  FAIL  %6.1f s  %s\n        %s" % (r["seconds"], rel, r["error"]))
        failed_required += len(results) - ok - len(mpp)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(all_results, fh, indent=1)
    if not ran_any:
        print("real corpora: skipped, no checkout given")
        return opts.skip_status
    return 1 if opts.require_all and failed_required else 0


if __name__ == "__main__":
    sys.exit(main())
