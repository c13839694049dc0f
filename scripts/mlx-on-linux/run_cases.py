#!/usr/bin/env python3
"""Runs MLX's tests one at a time on the simulated GPU, each with a time limit, and records per
test its file, outcome, time and first failure message as JSON lines (one per test, appended as it
finishes, so a run cut short keeps what it measured and a rerun with --resume goes on from there).

  run_cases.py cpp    --binary MLX_BUILD/tests/tests   --out cpp.jsonl    [--deny FILE] [--timeout S]
  run_cases.py python --tests MLX_SRC/python/tests    --out python.jsonl [--deny FILE] [--timeout S]

C++: every doctest test case in its own process (a crash or a hang loses one case, not the run).
Python: every test file in one pytest process (importing mlx once per file); a test that runs past
the limit is recorded as `timeout` (one that kills the process as `crashed`) and the file is run
again without the tests already recorded, so that one slow test does not hide the others.

A deny-list names tests not run, one per line: `NAME  # reason` (NAME is the doctest test case, or
the pytest node id `file.py::Class::test`); they are recorded as `denied` with the reason.
`--denied` runs only the deny-list's Python tests, under the same limit, to see which still need
their entry.
"""
import argparse
import html
import json
import os
import re
import subprocess
import tempfile
import time


def read_deny(path):
    deny = {}
    if path:
        for line in open(path):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, _, reason = line.partition("  #")
            deny[name.strip()] = reason.strip()
    return deny


def last_records(*paths):
    """The records of RECORDS files, a test's last one winning (a rerun's record replaces the
    earlier), keyed by (suite, name). results.py and write_deny.py read records this way too."""
    records = {}
    for path in paths:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                records[(r["suite"], r["name"])] = r
    return records


def emit(out, record):
    out.write(json.dumps(record) + "\n")
    out.flush()
    status = record["status"]
    print(f"{status:8} {record['seconds']:8.1f}s  {record['file']}: {record['name']}", flush=True)


def read_stats(path):
    """The sum of the MSLSIM_METAL_STATS lines the processes wrote to `path` (see docs/metal-api.md)."""
    total = {}
    if os.path.exists(path):
        for line in open(path):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            # libraries, pipelines, dispatches, and dispatches by code tier
            for kind in (k for k, v in record.items() if isinstance(v, dict)):
                entry = total.setdefault(kind, {"count": 0, "seconds": 0.0})
                entry["count"] += record[kind]["count"]
                entry["seconds"] += record[kind]["seconds"]
    return total


def doctest_cases(binary):
    listing = subprocess.run([binary, "--list-test-cases", "--no-colors=true"], capture_output=True,
                             text=True, check=True).stdout
    names = [line for line in listing.splitlines()
             if line and not line.startswith("[doctest]") and not line.startswith("====")]
    files = {}
    xml = subprocess.run([binary, "--list-test-cases", "--reporters=xml"], capture_output=True,
                         text=True).stdout
    for m in re.finditer(r'<TestCase\b[^>]*\bname="([^"]*)"[^>]*\bfilename="([^"]*)"', xml):
        files[html.unescape(m.group(1))] = m.group(2).split("/")[-1]
    return [(files.get(n, "?"), n) for n in names]


def doctest_message(xml):
    exc = re.search(r"<Exception\b[^>]*>(.*?)</Exception>", xml, re.S)
    expr = re.search(r'<Expression success="false"[^>]*>\s*<Original>(.*?)</Original>', xml, re.S)
    if exc:
        return "exception: " + " ".join(html.unescape(exc.group(1)).split())
    if expr:
        return "failed: " + " ".join(html.unescape(expr.group(1)).split())
    return ""


def run_cpp(args, deny, done, out):
    binary = os.path.abspath(args.binary)
    for file, name in doctest_cases(binary):
        if name in done:
            continue
        if name in deny:
            emit(out, dict(suite="cpp", file=file, name=name, status="denied", seconds=0.0,
                           message=deny[name]))
            continue
        with tempfile.NamedTemporaryFile(suffix=".xml") as report, \
                tempfile.NamedTemporaryFile(suffix=".jsonl") as stats:
            start = time.monotonic()
            # doctest filters are wildcards separated by commas: escape both.
            pattern = re.sub(r"([,\\])", r"\\\1", name)
            try:
                proc = subprocess.run([binary, f"--test-case={pattern}", "--reporters=xml",
                                       f"--out={report.name}", "--no-colors=true"],
                                      capture_output=True, text=True, timeout=args.timeout,
                                      cwd=os.path.dirname(os.path.dirname(binary)),
                                      env=dict(os.environ, MSLSIM_METAL_STATS=stats.name))
                seconds = time.monotonic() - start
                xml = open(report.name, errors="replace").read()
                if proc.returncode == 0:
                    status, message = "passed", ""
                else:
                    crashed = "<OverallResultsTestCases" not in xml
                    status = "crashed" if crashed else "failed"
                    message = doctest_message(xml) or (proc.stderr.strip().splitlines() or [""])[-1]
                    if crashed:
                        message = f"exit {proc.returncode}: {message}"
            except subprocess.TimeoutExpired:
                seconds = time.monotonic() - start
                status, message = "timeout", f"stopped after {args.timeout} s"
            work = read_stats(stats.name)
        emit(out, dict(suite="cpp", file=file, name=name, status=status, seconds=seconds,
                       message=message[:1000], stats=work))


def outcomes(events, timeout, unfinished):
    """Each test's record from the plugin's events (mslsim_record.py): its outcome where it ended (a
    failure in teardown after a passing call wins), `timeout` where the plugin saw it reach the
    limit, and `unfinished(start event)` for a test that started and said nothing more."""
    results = {}
    for e in events:
        if e["event"] == "end":
            previous = results.get(e["nodeid"])
            if previous is None or previous["status"] == "passed":
                results[e["nodeid"]] = dict(status="failed" if e["outcome"] == "failed" else e["outcome"],
                                            seconds=e["seconds"] + (previous["seconds"] if previous else 0.0),
                                            message=e["message"])
        elif e["event"] == "timeout" and e["nodeid"] not in results:
            # pytest-timeout ends the worker at the limit, just after the plugin's record.
            results[e["nodeid"]] = dict(status="timeout", seconds=timeout, message=f"stopped after {timeout:.0f} s")
    for e in events:
        if e["event"] == "start" and e["nodeid"] not in results:
            results[e["nodeid"]] = unfinished(e)
    return results


def run_python(args, deny, done, out, rerun=()):
    tests = os.path.abspath(args.tests)
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(f for f in os.listdir(tests) if f.startswith("test_") and f.endswith(".py"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    for file in files:
        if args.only and file not in args.only:
            continue
        targets = [file]
        if args.denied:
            # Only the deny-list's tests of this file, run as any other: does each still need its entry?
            targets = [n for n in deny if n.startswith(file + "::")]
            if not targets:
                continue
        elif args.rerun_failed:
            # Only the tests of this file recorded as not passing, by node id.
            targets = [n for n in rerun if n.startswith(file + "::")]
            if not targets:
                continue
        elif file in done:  # the whole file was recorded as crashed
            continue
        skip = {n: r for n, r in deny.items() if n.startswith(file + "::") and n not in done and not args.denied}
        for name, reason in skip.items():
            emit(out, dict(suite="python", file=file, name=name, status="denied", seconds=0.0,
                           message=reason))
        # Resuming: the tests of this file already recorded are not run again.
        recorded = {n for n in done if n.startswith(file + "::")}
        stats = tempfile.NamedTemporaryFile(suffix=".jsonl")
        deselect = tempfile.NamedTemporaryFile(suffix=".txt", mode="w+")
        env["MSLSIM_METAL_STATS"] = stats.name
        while True:
            # Each round runs the file without the tests already recorded; a round ends when the
            # file is done, or is killed because one test ran past the limit (or crashed it).
            with tempfile.NamedTemporaryFile(suffix=".jsonl", mode="w+") as record, \
                    tempfile.NamedTemporaryFile(suffix=".log", mode="w+") as log:
                cmd = [args.python, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider", "--rootdir", tests,
                       "-p", "mslsim_record"]
                deselect.seek(0)
                deselect.truncate()
                deselect.write("\n".join(list(skip) + sorted(recorded)))
                deselect.flush()
                env["MSLSIM_DESELECT"] = deselect.name
                env["MSLSIM_RECORD"] = record.name
                proc = subprocess.Popen(cmd, cwd=tests, stdout=log, stderr=subprocess.STDOUT,
                                        env=env)
                killed = False
                while proc.poll() is None:
                    time.sleep(0.5)
                    record.seek(0)
                    events = [json.loads(l) for l in record.read().splitlines() if l.endswith("}")]
                    ended = {e["nodeid"] for e in events if e["event"] == "end"}
                    starts = [e for e in events if e["event"] == "start" and e["nodeid"] not in ended]
                    if starts and time.time() - starts[-1]["time"] > args.timeout:
                        proc.kill()
                        proc.wait()
                        killed = True
                record.seek(0)
                events = [json.loads(l) for l in record.read().splitlines() if l.endswith("}")]
                log.seek(0)
                text = log.read()
                # A dying process says why before its traceback: an uncaught C++ exception (an
                # error MLX throws on a thread of its own), a fatal signal.
                why = re.search(r"(terminating due to uncaught exception.*(?:\n.*){0,3}|Fatal Python error.*)", text)
                tail = why.group(1) if why else " ".join(text.strip().splitlines()[-3:])
            # The test the process was in when it was killed or died.
            results = outcomes(events, args.timeout, lambda e: dict(
                status="timeout" if killed else "crashed",
                seconds=time.time() - e["time"] if killed else 0.0,
                message=f"stopped after {args.timeout:.0f} s" if killed
                else f"the process died in this test (exit {proc.returncode}): {tail}"))
            for nodeid, r in results.items():
                emit(out, dict(suite="python", file=file, name=nodeid, **r))
                recorded.add(nodeid)
            if not results and proc.returncode not in (0, 1, 5):
                emit(out, dict(suite="python", file=file, name=file, status="crashed", seconds=0.0,
                               message=f"pytest exit {proc.returncode}: {tail}"[:1000]))
            if not killed and (proc.returncode in (0, 1, 5) or not results):
                break
        # The file's GPU work (its processes exit normally only; a killed one says nothing).
        emit(out, dict(suite="python", file=file, name=file + "::<GPU work>", status="stats",
                       seconds=0.0, message="", stats=read_stats(stats.name)))
        stats.close()
        deselect.close()


def run_python_xdist(args, deny, out):
    """The whole suite in one pytest run over args.xdist pytest-xdist workers sharing one compile
    cache, tests handed out one by one (--dist load). pytest-timeout (thread method) ends a
    worker whose test runs past the limit, and xdist starts another; the record plugin names the
    test (a `timeout` record). Not --dist loadfile: Debian 12's pytest-xdist 3.1 then hangs for
    good once it has replaced a few ended workers (pytest-dev/pytest-xdist#784, fixed upstream
    in 2026 by #1328): the whole suite stopped after 10 minutes with both workers idle."""
    tests = os.path.abspath(args.tests)
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(f for f in os.listdir(tests) if f.startswith("test_") and f.endswith(".py")
                   and (not args.only or f in args.only))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    named = {n: r for n, r in deny.items() if n.split("::")[0] in files}
    # --denied: only the deny-list's tests, each by its node id; otherwise every file without them.
    targets, skip = (sorted(named), {}) if args.denied else (files, named)
    for name, reason in skip.items():
        emit(out, dict(suite="python", file=name.split("::")[0], name=name, status="denied", seconds=0.0,
                       message=reason))
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as stats, \
            tempfile.NamedTemporaryFile(suffix=".txt", mode="w+") as deselect, \
            tempfile.NamedTemporaryFile(suffix=".jsonl", mode="w+") as record, \
            tempfile.NamedTemporaryFile(suffix=".log", mode="w+") as log:
        deselect.write("\n".join(skip))
        deselect.flush()
        env.update(MSLSIM_METAL_STATS=stats.name, MSLSIM_DESELECT=deselect.name, MSLSIM_RECORD=record.name,
                   MSLSIM_TIMEOUT=str(args.timeout))
        cmd = [args.python, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider", "--rootdir", tests,
               "-p", "mslsim_record", "-n", str(args.xdist), "--dist", "load",
               "--max-worker-restart", "1000", "--timeout", str(args.timeout),
               "--timeout-method", "thread"]
        proc = subprocess.run(cmd, cwd=tests, stdout=log, stderr=subprocess.STDOUT, env=env)
        record.seek(0)
        events = [json.loads(l) for l in record.read().splitlines() if l.endswith("}")]
        log.seek(0)
        tail = " ".join(log.read().strip().splitlines()[-3:])
        results = outcomes(events, args.timeout, lambda e: dict(
            status="crashed", seconds=0.0, message=f"its worker died in this test (pytest exit {proc.returncode})"))
        for nodeid, r in sorted(results.items()):
            emit(out, dict(suite="python", file=nodeid.split("::")[0], name=nodeid, **r))
        if not results:
            emit(out, dict(suite="python", file="(suite)", name="(suite)", status="crashed", seconds=0.0,
                           message=f"pytest exit {proc.returncode}: {tail}"[:1000]))
        emit(out, dict(suite="python", file="(suite)", name="(suite)::<GPU work>", status="stats",
                       seconds=0.0, message="", stats=read_stats(stats.name)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("suite", choices=["cpp", "python"])
    p.add_argument("--binary")
    p.add_argument("--tests")
    p.add_argument("--python", default="/usr/bin/python3")
    p.add_argument("--out", required=True)
    p.add_argument("--deny")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--resume", action="store_true", help="skip tests already in --out")
    p.add_argument("--rerun-failed", action="store_true",
                   help="run again the tests --out records as failed or crashed (their new records "
                        "are appended; results.py takes a test's last record)")
    p.add_argument("--rerun-timeouts", action="store_true",
                   help="with --rerun-failed: the tests stopped by the time limit too")
    p.add_argument("--only", nargs="*", help="python: only these test files")
    p.add_argument("--xdist", type=int, default=0, metavar="N",
                   help="python: the whole suite in one pytest run over N pytest-xdist workers "
                        "(python3-pytest-xdist, python3-pytest-timeout) sharing one compile cache")
    p.add_argument("--denied", action="store_true",
                   help="python: run only the tests --deny names, with the time limit, to see which still need their entry")
    args = p.parse_args()
    done, last = set(), {}
    if (args.resume or args.rerun_failed) and os.path.exists(args.out):
        last = {name: r["status"] for (_, name), r in last_records(args.out).items()}
        done = set(last)
        if args.rerun_failed:
            again = ("failed", "crashed", "timeout") if args.rerun_timeouts else ("failed", "crashed")
            done = {n for n, status in last.items() if status not in again}
    deny = read_deny(args.deny)
    with open(args.out, "a" if args.resume or args.rerun_failed else "w") as out:
        if args.suite == "cpp":
            run_cpp(args, deny, done, out)
        elif args.xdist:
            run_python_xdist(args, deny, out)
        else:
            run_python(args, deny, done, out, rerun=set(last) - done if args.rerun_failed else ())


if __name__ == "__main__":
    main()
