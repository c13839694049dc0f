"""pytest helpers for kernel tests.

* ``assert_kernel_allclose(kernel, expected, *, rtol=1e-6, atol=0, **call)``: runs ``kernel(**call)``
  with every check on and compares each output with ``expected`` (a list, or one array for a
  single output); on a mismatch the message lists the first differing indices with both values.
* The ``mslsim_checks`` fixture: kernels called in the test run under ``--check all``; an error
  finding fails the test with the checker's report in the message. Enable it for a
  whole suite with ``pytestmark = pytest.mark.usefixtures("mslsim_checks")`` after registering the
  plugin (``pytest_plugins = ["mslsim.testing"]`` in conftest.py).
* Checks for individual calls: the ``check=`` keyword of a kernel call, ``with mslsim.checks(...)``,
  or the environment variable ``MSLSIM_CHECK`` (values of the CLI's ``--check``).
"""

import numpy as np

import mslsim

__all__ = ["assert_kernel_allclose", "mslsim_checks"]


def _as_float(a):
    if isinstance(a, mslsim.bfloat16_array):
        return a.to_float32()
    return np.asarray(a)


def assert_kernel_allclose(kernel, expected, *, rtol=1e-6, atol=0.0, check="all", **call):
    """Run ``kernel`` with ``call`` under ``check`` and compare its outputs with ``expected``."""
    outputs = kernel(check=check, **call)
    if not isinstance(expected, (list, tuple)):
        expected = [expected]
    if len(expected) != len(outputs):
        raise AssertionError(f"the kernel has {len(outputs)} outputs, {len(expected)} expected values given")
    for index, (got, want) in enumerate(zip(outputs, expected)):
        got, want = _as_float(got), _as_float(want)
        if got.shape != np.shape(want):
            raise AssertionError(f"output {index}: shape {got.shape}, expected {np.shape(want)}")
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        if not close.all():
            bad = np.argwhere(~close)
            lines = [f"  {tuple(int(i) for i in idx)}: got {got[tuple(idx)]!r}, expected {np.asarray(want)[tuple(idx)]!r}"
                     for idx in bad[:10]]
            raise AssertionError(f"output {index} ({kernel.output_names[index]}): {len(bad)} of {got.size} elements "
                                 f"differ (rtol={rtol}, atol={atol}):\n" + "\n".join(lines))
    return outputs


try:
    import pytest
except ImportError:  # the helpers above work without pytest
    pytest = None

if pytest is not None:
    @pytest.fixture
    def mslsim_checks():
        """Run every kernel of the test with all checks. A finding raises mslsim.KernelError in
        the kernel call, which fails the test with the checker's report as its message."""
        with mslsim.checks("all"):
            yield
