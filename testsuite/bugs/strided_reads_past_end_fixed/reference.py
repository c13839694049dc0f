#!/usr/bin/env python3
"""strided_reads_past_end(_fixed): src has n = 512 floats, dst n / 2 = 256; the fixed kernel's output
is src[n - 1 - i] + src[2 i + 1]. The buggy kernel's reads past the end are not performed (they
read 0), so its thread 0 gets 0 + src[2] and its last thread src[n - 255] + 0."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
n = 512
src = np.random.default_rng(7).standard_normal(n).astype(np.float32)
i = np.arange(n // 2)
np.save(os.path.join(out, "src.npy"), src)
np.save(os.path.join(out, "expected_fixed.npy"), (src[n - 1 - i] + src[2 * i + 1]).astype(np.float32))
padded = np.concatenate([src, np.zeros(1, np.float32)])  # the read past the end yields 0
np.save(os.path.join(out, "expected_bug.npy"), (padded[n - i] + padded[2 * i + 2]).astype(np.float32))
