#!/usr/bin/env python3
"""select_threadgroup_or_constant: 4 rows of 64 small integers as bfloat16 (exact), each row's sum
(96 each, exact in bfloat16)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
values = (np.arange(256) % 4).astype(np.float32)
# bfloat16 as numpy has no such type: the upper 16 bits of the float32.
np.save(os.path.join(out, "in.npy"), (values.view(np.uint32) >> 16).astype(np.uint16))
# The sums, as the values the bfloat16 outputs must equal.
np.save(os.path.join(out, "expected.npy"), values.reshape(4, 64).sum(axis=1).astype(np.float32))
