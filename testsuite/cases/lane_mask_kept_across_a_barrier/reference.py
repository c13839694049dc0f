#!/usr/bin/env python3
"""lane_mask_kept_across_a_barrier: per threadgroup of 64, 1000 x the count of values % 64 equal
to each thread's index, plus 5 where the thread's index is below 36."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    v = ((np.arange(128) * 7) % 100).astype("<u4")
    np.save(os.path.join(outdir, "values.npy"), v)
    out = np.zeros(128, dtype=np.int64)
    for group in range(2):
        ids = np.arange(64)
        counts = np.bincount(v[group * 64:(group + 1) * 64] % 64, minlength=64)
        out[group * 64:(group + 1) * 64] = 1000 * counts + np.where(ids < 36, 5, 0)
    np.save(os.path.join(outdir, "expected_1.npy"), out.astype("<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
