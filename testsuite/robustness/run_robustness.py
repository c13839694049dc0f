#!/usr/bin/env python3
"""Bad input at every front door (bad_inputs.json): each must end with the documented exit status
and a message that names what was wrong, never a crash, a hang, a silent success or C++ internals.

usage: run_robustness.py MSLSIM [--python-path DIR] [-k NAME]
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
# What a user must never see: C++ exception texts, library internals, crash reports.
FORBIDDEN = ["what()", "json.exception", "internal error", "std::", "basic_filebuf", "terminate called",
             "Stack dump", "LLVM ERROR", "PLEASE submit", "Segmentation fault", "Aborted", "bad_alloc",
             "_M_", "stoul", "stoull", "stod", "Traceback"]
CASE_SECONDS = 60


def npy_image(descr, shape, data_bytes):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * data_bytes


def write_files(files, tmp):
    for name, content in files.items():
        path = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, str):
            data = content.replace("{fixtures}", FIXTURES).encode()
        elif "npy" in content:
            data = npy_image(**content["npy"])
        else:
            r = content["repeat"]
            data = (r["head"] + "".join(r["line"].replace("{n}", str(n)) for n in range(r["times"])) + r["tail"]).encode()
        with open(path, "wb") as f:
            f.write(data)


def forbidden_in(text):
    return [f for f in FORBIDDEN if f in text]


def run_cli(mslsim, case):
    with tempfile.TemporaryDirectory(prefix="mslsim-robustness-") as tmp:
        write_files(case.get("files", {}), tmp)
        argv = [a.replace("{fixtures}", FIXTURES).replace("{tmp}", tmp) for a in case["argv"]]
        env = dict(os.environ, MSLSIM_NO_PROGRESS="1")
        start = time.monotonic()
        try:
            p = subprocess.run([mslsim] + argv, capture_output=True, text=True, errors="replace",
                               timeout=CASE_SECONDS, env=env, cwd=tmp)
        except subprocess.TimeoutExpired:
            return "hung: no answer within %d s" % CASE_SECONDS, CASE_SECONDS
        seconds = time.monotonic() - start
    problems = []
    if p.returncode < 0:
        problems.append("killed by signal %d" % -p.returncode)
    elif p.returncode != case["exit"]:
        problems.append("exit %d, expected %d" % (p.returncode, case["exit"]))
    for fragment in case.get("stderr", []):
        if fragment not in p.stderr:
            problems.append("stderr lacks %r" % fragment)
    for fragment in case.get("stdout", []):
        if fragment not in p.stdout:
            problems.append("stdout lacks %r" % fragment)
    bad = forbidden_in(p.stderr + p.stdout)
    if bad:
        problems.append("internals shown: %s" % bad)
    if len(p.stderr) > case.get("max_stderr_bytes", 100000):
        problems.append("%d bytes of stderr" % len(p.stderr))
    if problems:
        problems.append("stderr was: %s" % p.stderr[-600:].strip())
    return "; ".join(problems), seconds


PYTHON_DRIVER = r"""
import json, os, sys, tempfile, traceback
import numpy as np
import mslsim
cases = json.load(sys.stdin)
results = []
for case in cases:
    with tempfile.TemporaryDirectory(prefix="mslsim-robustness-") as tmp:
        scope = {"mslsim": mslsim, "np": np, "os": os, "tmp": tmp, "fixtures": sys.argv[1]}
        try:
            exec(case["code"], scope)
            results.append({"raised": None, "message": ""})
        except Exception as e:
            results.append({"raised": type(e).__name__, "message": str(e)})
print(json.dumps(results))
"""


def run_python(python_path, cases):
    env = dict(os.environ, PYTHONPATH=python_path, MSLSIM_NO_PROGRESS="1")
    p = subprocess.run([sys.executable, "-c", PYTHON_DRIVER, FIXTURES], input=json.dumps(cases),
                       capture_output=True, text=True, env=env, timeout=CASE_SECONDS * len(cases))
    if p.returncode != 0:
        # The interpreter must survive every call.
        return ["the interpreter died (status %d): %s" % (p.returncode, p.stderr[-800:])] * len(cases)
    failures = []
    for case, got in zip(cases, json.loads(p.stdout.strip().splitlines()[-1])):
        problems = []
        if got["raised"] != case["raises"]:
            problems.append("raised %s, expected %s" % (got["raised"], case["raises"]))
        if case["message"] not in got["message"]:
            problems.append("message lacks %r" % case["message"])
        bad = forbidden_in(got["message"])
        if bad:
            problems.append("internals shown: %s" % bad)
        if problems:
            problems.append("message was: %s" % got["message"][:600])
        failures.append("; ".join(problems))
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mslsim")
    parser.add_argument("--python-path")
    parser.add_argument("-k", dest="only", help="run only cases whose name contains this")
    args = parser.parse_args()
    with open(os.path.join(HERE, "bad_inputs.json")) as f:
        spec = json.load(f)
    keep = lambda c: not args.only or args.only in c["name"]
    rows = []
    for case in filter(keep, spec["cli"]):
        failure, seconds = run_cli(os.path.abspath(args.mslsim), case)
        rows.append(("cli", case, failure, seconds))
    python_cases = list(filter(keep, spec["python"])) if args.python_path else []
    if python_cases:
        start = time.monotonic()
        for case, failure in zip(python_cases, run_python(args.python_path, python_cases)):
            rows.append(("python", case, failure, (time.monotonic() - start) / len(python_cases)))
    by_class = {}
    for door, case, failure, seconds in rows:
        tally = by_class.setdefault(case["class"], [0, 0])
        tally[0] += 1
        tally[1] += not failure
        status = "ok  " if not failure else "FAIL"
        print("%s %-7s %-20s %-62s %5.1f s" % (status, door, case["class"], case["name"][:62], seconds))
        if failure:
            print("       " + failure)
    print()
    for cls, (total, ok) in sorted(by_class.items()):
        print("%-20s %3d of %3d as documented" % (cls, ok, total))
    failed = sum(1 for r in rows if r[2])
    print("%d bad inputs, %d failed" % (len(rows), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
