"""mslsim.testing: the helpers a kernel author's pytest suite uses."""
import numpy as np
import pytest

import mslsim
from mslsim.testing import assert_kernel_allclose

pytest_plugins = ["mslsim.testing", "pytester"]

DOUBLE = mslsim.fast.metal_kernel(name="double", input_names=["a"], output_names=["out"],
                                  source="uint i = thread_position_in_grid.x;\nout[i] = 2 * a[i];")
RACY = mslsim.fast.metal_kernel(name="racy", input_names=["a"], output_names=["out"], source="""
uint i = thread_position_in_grid.x;
out[i] = a[i];
out[0] = a[i];
""")


def call(a):
    return dict(inputs=[a], output_shapes=[a.shape], output_dtypes=[mslsim.float32], grid=(a.size, 1, 1),
                threadgroup=(64, 1, 1))


def test_assert_kernel_allclose_passes_and_returns_the_outputs():
    a = np.arange(100, dtype=np.float32)
    (out,) = assert_kernel_allclose(DOUBLE, a * 2, **call(a))
    np.testing.assert_array_equal(out, a * 2)


def test_assert_kernel_allclose_shows_the_first_mismatches():
    a = np.arange(100, dtype=np.float32)
    wrong = a * 2
    wrong[[3, 70]] = -1
    with pytest.raises(AssertionError, match=r"2 of 100 elements differ(.|\n)*\(3,\): got 6\.0, expected -1\.0"):
        assert_kernel_allclose(DOUBLE, wrong, **call(a))


def test_assert_kernel_allclose_runs_every_check():
    a = np.arange(100, dtype=np.float32)
    with pytest.raises(mslsim.KernelError, match="data-race"):
        assert_kernel_allclose(RACY, a, **call(a))


def test_checks_on_several_workers_find_the_same_races(monkeypatch):
    a = np.arange(4096, dtype=np.float32)
    monkeypatch.setattr(mslsim, "workers", 2)  # threadgroups on two threads, sharing the checkers' state
    (out,) = assert_kernel_allclose(DOUBLE, a * 2, **call(a))
    np.testing.assert_array_equal(out, a * 2)
    with pytest.raises(mslsim.KernelError, match="data-race"):
        RACY(check="races", **call(a))


def test_workers_out_of_range_is_a_value_error(monkeypatch):
    monkeypatch.setattr(mslsim, "workers", 5000)
    with pytest.raises(ValueError, match="mslsim.workers"):
        DOUBLE(**call(np.arange(64, dtype=np.float32)))


def test_checks_from_the_environment(monkeypatch):
    a = np.arange(100, dtype=np.float32)
    RACY(**call(a))  # default checks (bounds, sync) do not look for races
    monkeypatch.setenv("MSLSIM_CHECK", "races")
    with pytest.raises(mslsim.KernelError):
        RACY(**call(a))


def test_the_fixture_turns_findings_into_failures(pytester):
    pytester.makeconftest('pytest_plugins = ["mslsim.testing"]')
    pytester.makepyfile('''
import numpy as np, pytest, mslsim
RACY = mslsim.fast.metal_kernel(name="racy", input_names=["a"], output_names=["out"],
    source="uint i = thread_position_in_grid.x; out[i] = a[i]; out[0] = a[i];")
@pytest.mark.usefixtures("mslsim_checks")
def test_racy():
    a = np.arange(64, dtype=np.float32)
    RACY(inputs=[a], output_shapes=[a.shape], output_dtypes=[mslsim.float32], grid=(64, 1, 1),
         threadgroup=(64, 1, 1))
''')
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*KernelError*kernel custom_kernel_racy_float_float failed*",
                                 "*error ?data-race?*argument 'out'*"])
