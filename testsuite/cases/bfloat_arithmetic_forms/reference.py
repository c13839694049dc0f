#!/usr/bin/env python3
"""bfloat_arithmetic_forms: numpy float32 arithmetic rounded to bfloat16 after every operation, as
MSL's bfloat operators round; integer operands rounded to bfloat16 first (257 -> 256)."""
import os
import sys

import numpy as np


def bf16(x):
    """float32 values rounded to nearest even bfloat16, returned as float32 values."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
N, n = 96, 80
rng = np.random.default_rng(20261207)
x = bf16(rng.uniform(-4.0, 4.0, N).astype(np.float32))
np.save(os.path.join(out, "x.npy"), (x.view(np.uint32) >> 16).astype(np.uint16))
i = np.arange(N)
j = np.minimum(i, n - 1)
inside = i < n
v = np.where(inside, x[j], np.float32(0))
u = np.where(~inside, np.float32(1), x[j])
y = bf16(bf16(v + bf16(u * np.float32(256))) + np.where(inside, x[j], np.float32(0)))
z = np.where(inside, x[j] * np.float32(0.5), np.float32(0)) + (i % 3).astype(np.float32)
np.save(os.path.join(out, "expected_y.npy"), y.astype(np.float32))
np.save(os.path.join(out, "expected_z.npy"), z.astype(np.float32))
