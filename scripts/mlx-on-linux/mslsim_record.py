"""A pytest plugin for run_cases.py: appends one JSON line when a test starts and one when it
ends (outcome, seconds, first line of the failure) to the file named by $MSLSIM_RECORD, flushed at
once, so that a process killed for taking too long or crashing still tells which test it was in
and what the tests before it did.

After each test it waits for the test's GPU work (mx.synchronize): MLX reports a failed command
buffer at the next synchronisation, which without this may be in a later test; so a test's error
is its own."""
import json
import os
import time

_out = None


def _write(**record):
    _out.write(json.dumps(record) + "\n")
    _out.flush()


def pytest_configure(config):
    global _out
    _out = open(os.environ["MSLSIM_RECORD"], "a")


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
    _write(event="start", nodeid=nodeid, time=time.time())


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
