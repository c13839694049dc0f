#!/usr/bin/env python3
"""program_scope_constexpr_tables: the same tables in numpy (matrices column-major, as MSL's)."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
N = 12
p = (np.arange(2 * N, dtype=np.float32).reshape(N, 2) - 5) * np.float32(0.5)
np.save(os.path.join(out, "p.npy"), p.reshape(-1))
rotate = np.array([[0.0, 1.0], [-1.0, 0.0]], np.float32).T   # columns (0, 1) and (-1, 0)
scale = np.array([[2.0, 0.0], [0.0, 3.0]], np.float32).T
pair = np.array([1.5, 2.5], np.float32)
i = np.arange(N)
q = (scale @ (rotate @ p.T)).T + np.array([3.0, 4.0], np.float32) * pair[i % 2][:, None] + np.array([12.0 * 12.0, 13.0 * 19.0], np.float32)
shift = np.array([13, 19, 12])[i % 3]
mask = np.array([0xFF, 0xFF00, 0xFF0000, 0xFF000000], np.uint64)[i % 4] >> 24
rotated = np.array([12, 20, 13])[i % 3]   # (13, 19, 12) with x and z swapped and y + 1
t = (shift + mask.astype(np.int64) + 3 * 100 + 1 * 1000 + 44 * 100000 + 19 * 10000 + 8 * 4 + 20 * 1000000 +
     rotated * 10000000).astype(np.int32)
np.save(os.path.join(out, "expected_q.npy"), q.astype(np.float32).reshape(-1))
np.save(os.path.join(out, "expected_t.npy"), t)
