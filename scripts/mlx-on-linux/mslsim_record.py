"""A pytest plugin for run_cases.py: appends one JSON line when a test starts and one when it
ends (outcome, seconds, first line of the failure) to the file named by $MSLSIM_RECORD, flushed at
once, so that a process killed for taking too long or crashing still tells which test it was in
and what the tests before it did.

After each test it waits for the test's GPU work (mx.synchronize): MLX reports a failed command
buffer at the next synchronisation, which without this may be in a later test; so a test's error
is its own.

Under pytest-xdist (run_cases.py --xdist) the tests run in the workers, which write the records;
with $MSLSIM_TIMEOUT set, a test still running that many seconds after it started gets a
`timeout` record just before pytest-timeout ends its worker (a record per line, each written at
once: the workers append to one file)."""
import json
import os
import threading
import time

_out = None
_timers = {}


def _write(**record):
    if _out is None:
        return
    _out.write(json.dumps(record) + "\n")
    _out.flush()


def pytest_configure(config):
    global _out
    # Under xdist the controller sees every report the workers send: only the workers write.
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        _out = open(os.environ["MSLSIM_RECORD"], "a")


def _timed_out(nodeid, started):
    _write(event="timeout", nodeid=nodeid, seconds=time.time() - started)


def pytest_collection_modifyitems(config, items):
    # The tests named (exactly) in the file $MSLSIM_DESELECT are not run: pytest's own --deselect
    # matches prefixes, so it would drop test_x_y along with test_x.
    path = os.environ.get("MSLSIM_DESELECT")
    if not path:
        return
    names = set(open(path).read().split("\n"))
    kept = [item for item in items if item.nodeid not in names]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in names])
        items[:] = kept


def pytest_runtest_logstart(nodeid, location):
    started = time.time()
    _write(event="start", nodeid=nodeid, time=started, worker=os.environ.get("PYTEST_XDIST_WORKER", ""))
    limit = float(os.environ.get("MSLSIM_TIMEOUT", "0"))
    if limit > 0 and _out is not None:
        timer = threading.Timer(max(limit - 0.5, 0.1), _timed_out, (nodeid, started))
        timer.daemon = True
        timer.start()
        _timers[nodeid] = timer


def pytest_runtest_logfinish(nodeid, location):
    timer = _timers.pop(nodeid, None)
    if timer is not None:
        timer.cancel()


def pytest_runtest_logreport(report):
    # A test's outcome is its call, unless its setup failed or was skipped, or its teardown failed.
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed") \
            or (report.when == "teardown" and report.outcome == "failed"):
        message = ""
        if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
            message = str(report.longrepr[2])
        elif report.outcome == "failed":
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
        _write(event="end", nodeid=report.nodeid, outcome=report.outcome,
               seconds=report.duration, message=" ".join(message.split())[:1000])


def pytest_runtest_teardown(item):
    # Recorded as this test's failure rather than raised: pytest would fail the next test's setup
    # ("previous item was not torn down properly") for an exception raised here.
    try:
        import mlx.core as mx
        mx.synchronize()
    except ImportError:
        return
    except Exception as e:  # the test's GPU work failed
        _write(event="end", nodeid=item.nodeid, outcome="failed", seconds=0.0,
               message=" ".join(f"{type(e).__name__}: {e}".split())[:1000])
