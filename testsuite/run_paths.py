#!/usr/bin/env python3
"""Every execution path computes the same: the differential runner.

mslsim picks among several ways to run a kernel (an uninstrumented build with thread loops and the
vectoriser, an instrumented one, coroutines or region loops or fibers for threadgroups that
synchronise, one or several workers, a compile from scratch or an object from the cache) by the
check mode, the schedule and the kernel's shape. Each case (testsuite/cases, examples/, every
planted-bug case that checks outputs and expects no error, and the bench kernels at small sizes)
runs once per path below, and

* every output buffer must be bit-identical to the baseline's (buffers a case declares
  "order_dependent", such as sums of float atomics, are compared within the case's tolerance);
* a finding kind reported under one path must be reported, at the same lines, by every other path
  that runs the check it belongs to;
* no path may end with an error the baseline does not have.

Usage: run_paths.py MSLSIM [--jobs N] [-k SUBSTRING] [--python PYTHON]
Prints one line per case and a table per path; exit 1 on any difference.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (name, extra arguments, cold cache). The baseline is the default mode; each other path changes
# one thing, or two where a combination is a path of its own (the uninstrumented build under a
# random schedule, all checks in reverse).
BASELINE = ("default", ["--check", "bounds,sync"], False)
PATHS = [
    BASELINE,
    ("none", ["--check", "none"], False),
    ("sync", ["--check", "sync"], False),
    ("all", ["--check", "all"], False),
    ("reverse", ["--check", "bounds,sync", "--schedule", "reverse"], False),
    ("random", ["--check", "bounds,sync", "--schedule", "random:7"], False),
    ("none-random", ["--check", "none", "--schedule", "random:11"], False),
    ("all-reverse", ["--check", "all", "--schedule", "reverse"], False),
    ("workers-1", ["--check", "bounds,sync", "--workers", "1"], False),
    ("workers-2", ["--check", "bounds,sync", "--workers", "2"], False),
    ("none-workers-2", ["--check", "none", "--workers", "2"], False),
    # SIMD-group kernels: "none" and the default checks run a SIMD-group's lanes as vector lanes;
    # here every thread alone.
    ("none-threads", ["--check", "none", "--simd-lanes", "threads"], False),
    ("default-threads", ["--check", "bounds,sync", "--simd-lanes", "threads"], False),
    ("cold", ["--check", "bounds,sync"], True),
    # The quick code tier: the entry alone, lightly optimised, threads one by one or on fibers.
    ("quick", ["--check", "bounds,sync", "--tier", "quick"], False),
    ("none-quick", ["--check", "none", "--tier", "quick"], False),
    ("all-quick", ["--check", "all", "--tier", "quick"], False),
]

# The check each finding kind belongs to (None: reported in every mode).
CHECK_OF = {
    "out-of-bounds": "bounds", "write-to-read-only": "bounds",
    "data-race": "races", "lockstep-hazard": "races",
    "uninitialized-read": "uninit",
    "barrier-divergence": "sync",
    "simd-divergence": "simd", "simd-inactive-lane": "simd",
    "misaligned-access": "align",
}


def checks_of(args):
    value = args[args.index("--check") + 1] if "--check" in args else "bounds,sync"
    if value == "all":
        return {"races", "bounds", "uninit", "sync", "simd"}
    if value == "none":
        return set()
    return set(value.split(","))


def collect_cases(substring):
    cases = []
    for folder, only_clean in ((os.path.join(HERE, "cases"), False), (os.path.join(ROOT, "examples"), False),
                               (os.path.join(HERE, "bugs"), True)):
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name, "case.json")
            if not os.path.exists(path) or (substring and substring not in name):
                continue
            with open(path) as f:
                spec = json.load(f)
            if only_clean and ("expect" not in spec or any(
                    e.get("severity", "error") == "error" for e in spec.get("findings", []))):
                continue
            cases.append((os.path.basename(folder) + "/" + name, os.path.dirname(path), spec))
    return cases


# The bench kernels (bench/run.py) at small sizes, ragged where the kernel allows: their inputs are
# written once into `data_root`, and each becomes a case like the others.
BENCH_SIZES = {"add": 5000, "softcap": 5000, "gemm512": 48, "gemm_simdgroup": 64, "reduce": 8192, "reduce_simd": 8192,
               "depthwise": 8192, "scan": 8192}


def collect_bench_cases(substring, data_root):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import run as bench  # noqa: E402 (bench/run.py)
    rng = np.random.default_rng(2026)
    cases = []
    for b in bench.BENCHES:
        if b.name not in BENCH_SIZES or (substring and substring not in b.name):
            continue
        case = b.make(BENCH_SIZES[b.name], rng)
        folder = os.path.join(data_root, b.name)
        os.makedirs(folder, exist_ok=True)
        buffers = {}
        for i, (kind, value) in enumerate(case.args):
            if kind == "npy":
                np.save(os.path.join(folder, "arg%d.npy" % i), value)
                buffers[str(i)] = "arg%d.npy" % i
            else:
                buffers[str(i)] = {"zeros": "zeros:float32:%s", "uint": "scalar:uint32:%s",
                                   "float": "scalar:float32:%s"}[kind] % value
        spec = {"source": os.path.join(bench.KERNELS, b.metal + ".metal"), "kernel": b.kernel,
                "grid": list(case.grid), "threadgroup": list(case.group), "buffers": buffers}
        cases.append(("bench/%s %s" % (b.name, case.label), folder, spec))
    return cases


def run_path(mslsim, case_dir, data_dir, spec, args, cold, work):
    """Runs the case's kernel once; returns (exit status, {index: bytes}, findings, stderr)."""
    cmd = [mslsim, "run", os.path.join(case_dir, spec.get("source", "kernel.metal")), "--kernel", spec["kernel"],
           "--grid", ",".join(str(v) for v in spec["grid"]),
           "--threadgroup", ",".join(str(v) for v in spec["threadgroup"]),
           "--dispatch", spec.get("dispatch", "threads"), "--timeout", str(spec.get("timeout", 60))]
    outputs = {}
    for index, value in spec.get("buffers", {}).items():
        cmd += ["--buffer", "%s=%s" % (index, value)]
        if not value.startswith("@"):
            outputs[int(index)] = os.path.join(work, "out%s.npy" % index)
            cmd += ["--output", "%s=%s" % (index, outputs[int(index)])]
    for index, value in spec.get("threadgroup_memory", {}).items():
        cmd += ["--threadgroup-memory", "%s=%s" % (index, value)]
    report = os.path.join(work, "report.json")
    cmd += ["--report-json", report] + args
    env = dict(os.environ)
    if cold:
        env["MSLSIM_CACHE_DIR"] = os.path.join(work, "cold-cache")
    p = subprocess.run(cmd, cwd=data_dir, env=env, capture_output=True, text=True, errors="replace", timeout=600)
    data = {i: np.load(path).tobytes() for i, path in outputs.items() if os.path.exists(path)}
    findings = {}
    if os.path.exists(report):
        with open(report) as f:
            for d in json.load(f).get("diagnostics", []):
                lines = sorted({a.get("line") for a in d.get("accesses", []) if a.get("line")})
                findings.setdefault(d["kind"], set()).add((d.get("severity"), tuple(lines)))
        os.remove(report)
    for path in outputs.values():
        if os.path.exists(path):
            os.remove(path)
    return p.returncode, data, findings, p.stderr


def check_case(mslsim, python, name, case_dir, spec):
    """Runs one case under every path; returns ({path: problems}, data directory to remove)."""
    work = tempfile.mkdtemp(prefix="mslsim-paths-")
    data_dir = case_dir
    if os.path.exists(os.path.join(case_dir, "reference.py")):
        data_dir = os.path.join(work, "data")
        subprocess.run([python, os.path.join(case_dir, "reference.py"), data_dir], check=True,
                       capture_output=True, timeout=300)
    tolerance = {int(k): spec.get("expect", {}).get(k, {}) for k in spec.get("order_dependent", {})}
    results = {}
    for path_name, args, cold in PATHS:
        results[path_name] = (run_path(mslsim, case_dir, data_dir, spec, args, cold, work), checks_of(args))
    problems = {p[0]: [] for p in PATHS}
    (base_status, base_data, base_findings, _), base_checks = results[BASELINE[0]]
    if base_status not in (0, 1):
        problems[BASELINE[0]].append("exit %d: %s" % (base_status, results[BASELINE[0]][0][3].strip()[:400]))
    for path_name, ((status, data, findings, stderr), checks) in results.items():
        if path_name == BASELINE[0]:
            continue
        out = problems[path_name]
        if status != base_status and not (status in (0, 1) and base_status in (0, 1)):
            out.append("exit %d, the baseline %d: %s" % (status, base_status, stderr.strip()[:400]))
        for index, got in data.items():
            want = base_data.get(index)
            if want is None or got == want:
                continue
            if index in tolerance:
                a = np.frombuffer(got, np.float32).astype(np.float64)
                b = np.frombuffer(want, np.float32).astype(np.float64)
                t = tolerance[index]
                if a.shape == b.shape and np.allclose(a, b, rtol=t.get("rtol", 0), atol=t.get("atol", 0)):
                    continue
            first = next(i for i, (x, y) in enumerate(zip(got, want)) if x != y) if len(got) == len(want) else 0
            out.append("buffer %d differs from the baseline's (first at byte %d)" % (index, first))
        if set(data) != set(base_data):
            out.append("outputs %s, the baseline %s" % (sorted(data), sorted(base_data)))
        # Findings: the same kinds at the same lines for every check both paths run.
        for kind in set(findings) | set(base_findings):
            check = CHECK_OF.get(kind)
            if check is not None and not (check in checks and check in base_checks):
                continue
            if findings.get(kind, set()) != base_findings.get(kind, set()):
                out.append("%s: %s, the baseline %s" % (kind, sorted(findings.get(kind, set())),
                                                         sorted(base_findings.get(kind, set()))))
        if status == 1 and base_status == 0 and not any(CHECK_OF.get(k) not in base_checks for k in findings):
            out.append("error findings the baseline does not have: %s" % sorted(findings))
    # Paths that share extra checks agree with each other too (all and all-reverse).
    (_, _, all_findings, _), _ = results["all"]
    (_, _, rev_findings, _), _ = results["all-reverse"]
    if all_findings != rev_findings:
        problems["all-reverse"].append("findings %s, under all in order %s" % (sorted(rev_findings), sorted(all_findings)))
    shutil.rmtree(work, ignore_errors=True)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mslsim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--python", default=sys.executable, help="the interpreter for reference.py (needs numpy)")
    opts = ap.parse_args()
    mslsim = os.path.abspath(opts.mslsim)
    bench_data = tempfile.mkdtemp(prefix="mslsim-paths-bench-")
    cases = collect_cases(opts.k) + collect_bench_cases(opts.k, bench_data)
    totals = {p[0]: [0, 0] for p in PATHS}  # runs, differences
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        futures = {pool.submit(check_case, mslsim, opts.python, name, d, spec): name for name, d, spec in cases}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            try:
                problems = future.result()
            except Exception as e:  # a reference that failed, a run that hung: a failure of the case
                problems = {BASELINE[0]: ["%s: %s" % (type(e).__name__, e)]}
            bad = {p: v for p, v in problems.items() if v}
            for p in totals:
                totals[p][0] += 1
                totals[p][1] += bool(problems.get(p))
            failed += bool(bad)
            print("%-58s %s" % (name, "DIFFERS" if bad else "same on %d paths" % len(PATHS)), flush=True)
            for p, v in bad.items():
                for line in v:
                    print("    [%s] %s" % (p, line))
    print()
    print("| path | arguments | cases | differing |")
    print("|---|---|---|---|")
    for name, args, cold in PATHS:
        print("| %s | %s%s | %d | %d |" % (name, " ".join(args), " (empty cache)" if cold else "",
                                          totals[name][0], totals[name][1]))
    shutil.rmtree(bench_data, ignore_errors=True)
    print("\n%d cases, %d paths, %d with differences" % (len(cases), len(PATHS), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
