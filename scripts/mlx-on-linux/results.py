#!/usr/bin/env python3
"""Turns the records of run_cases.py (JSON lines, one per test) into Markdown tables: per suite
and test file, the tests passed, failed, skipped, stopped by the time limit and denied; then every
test that did not pass, with its class and first message.

A failure's class comes from classified.txt beside this script (`NAME  # class: note`, NAME as
in the records), else from its message: a command buffer failed by one of mslsim's checks is
`finding` (an error our checks report in an MLX kernel, still to be classified by a reader).

Columns `compile s` and `dispatch s` are the seconds MLX's processes spent making libraries and
pipeline states (parsing, generating code or loading it from the compile cache) and running
dispatches, from MSLSIM_METAL_STATS (processes stopped by the time limit report none).

Usage: results.py RECORDS.jsonl [...]
"""
import collections
import os
import re
import sys

from run_cases import last_records

STATUSES = ("passed", "failed", "crashed", "timeout", "skipped", "denied")


def read_classes():
    classes = {}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "classified.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.rstrip("\n")
            if line.strip() and not line.lstrip().startswith("#"):
                name, _, note = line.partition("  #")
                classes[name.strip()] = note.strip()
    return classes


# Causes a failure's message says by itself.
PATTERNS = [
    (re.compile(r"Unable to build metal library from source mlx/backend/metal/kernels/(fp_)?quantized\.h:\d+:\d+: "
                r"error: reference to overloaded function could not be resolved"),
     "MLX bug (JIT mode only): quantized.cpp instantiates the quantized matrix-vector kernels with a "
     "sixth template argument (results_per_simdgroup) that only fp_qmv_fast takes; Metal's compiler "
     "rejects it too (MLX's default macOS build uses precompiled instantiations)"),
    (re.compile(r"Compile with MLX_BUILD_GGUF=ON"),
     "not built: GGUF support (MLX_BUILD_GGUF=OFF; its library would be downloaded)"),
]


def classify(record, classes):
    if record["name"] in classes:
        return classes[record["name"]]
    for pattern, cls in PATTERNS:
        if pattern.search(record["message"]):
            return cls
    if record["status"] in ("timeout", "denied"):
        return "too slow for a CPU simulator: " + record["message"]
    if "mslsim found errors" in record["message"] or "[METAL] Command buffer execution failed" \
            in record["message"]:
        return "finding: a check of mslsim failed a command buffer (to classify)"
    return "to classify"


def main(paths):
    records = last_records(*paths)
    classes = read_classes()
    by_suite = collections.OrderedDict()
    work = collections.defaultdict(lambda: collections.Counter())  # (suite, file) -> seconds by kind
    for r in records.values():
        for kind, entry in r.get("stats", {}).items():
            work[(r["suite"], r["file"])][kind] += entry["seconds"]
        if r["status"] == "stats":
            by_suite.setdefault(r["suite"], collections.OrderedDict()).setdefault(r["file"], collections.Counter())
            continue
        by_suite.setdefault(r["suite"], collections.OrderedDict()).setdefault(
            r["file"], collections.Counter())[r["status"]] += 1
    for suite, files in by_suite.items():
        title = {"cpp": "C++ tests (`tests/`)", "python": "Python tests (`python/tests`)"}[suite]
        print(f"### MLX's {title}\n")
        print("| test file | " + " | ".join(STATUSES) + " | seconds | compile s | dispatch s |")
        print("|---|" + "---|" * (len(STATUSES) + 3))
        work_total = collections.Counter()
        total = collections.Counter()
        seconds_total = 0.0
        for file, counts in files.items():
            total.update(counts)
            seconds = sum(r["seconds"] for r in records.values()
                          if r["suite"] == suite and r["file"] == file)
            seconds_total += seconds
            w = work[(suite, file)]
            work_total.update(w)
            compile_s = w["libraries"] + w["pipelines"]
            print(f"| {file} | " + " | ".join(str(counts[s]) for s in STATUSES)
                  + f" | {seconds:.0f} | {compile_s:.1f} | {w['dispatches']:.1f} |")
        print("| **all** | " + " | ".join(f"**{total[s]}**" for s in STATUSES)
              + f" | **{seconds_total:.0f}** | **{work_total['libraries'] + work_total['pipelines']:.1f}**"
              f" | **{work_total['dispatches']:.1f}** |")
        ran = total["passed"] + total["failed"] + total["crashed"] + total["timeout"]
        tests = ran + total["denied"]
        if ran:
            print(f"\n{total['passed']} of the {ran} tests run pass ({100 * total['passed'] / ran:.1f}%);"
                  f" {total['denied'] + total['timeout']} of {tests} ({100 * (total['denied'] + total['timeout']) / max(tests, 1):.1f}%)"
                  " denied or stopped for time; skipped tests (MLX's own skips) are not counted.\n")
        bad = [r for r in records.values() if r["suite"] == suite and r["status"] in
               ("failed", "crashed", "timeout", "denied")]
        if bad:
            print("| file | test | status | class | first message |")
            print("|---|---|---|---|---|")
            for r in bad:
                message = " ".join(r["message"].split()).replace("|", "/")
                if len(message) > 300:
                    message = message[:300] + "..."
                name = r["name"].split("::", 1)[-1]
                print(f"| {r['file']} | {name} | {r['status']} | {classify(r, classes)} | {message} |")
            print()


if __name__ == "__main__":
    main(sys.argv[1:])
