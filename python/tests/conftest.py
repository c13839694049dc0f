"""Shared helpers for the mslsim Python suites. Every expected value is computed with numpy."""

import numpy as np
import pytest

import mslsim


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def verbose_block(name, source):
    """What MLX prints for verbose=True (contract §3.12)."""
    return "Generated source code for `%s`:\n```\n%s\n```\n" % (name, source)


def generated(capfd):
    """The kernel source printed by the last verbose call."""
    out = capfd.readouterr().out
    start = out.index("```\n") + 4
    end = out.rindex("\n```\n")
    return out[start:end]


def bf16_reference_bits(values):
    """Round float32 values to bfloat16 bit patterns, nearest even, written independently of
    mslsim: exact integer arithmetic on the float32 encoding, finite values only."""
    v = np.asarray(values, dtype=np.float32).ravel()
    out = []
    for u in v.view(np.uint32).tolist():
        upper, lower = u >> 16, u & 0xFFFF
        if lower > 0x8000 or (lower == 0x8000 and (upper & 1)):
            upper += 1
        out.append(upper)
    return np.array(out, dtype=np.uint16).reshape(np.shape(values))


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


COPY_SOURCE = """
    uint elem = thread_position_in_grid.x;
    out[elem] = inp[elem];
"""


def copy_kernel(name="copy"):
    return mslsim.metal_kernel(name=name, input_names=["inp"], output_names=["out"],
                               source=COPY_SOURCE)
