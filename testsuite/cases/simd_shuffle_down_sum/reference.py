#!/usr/bin/env python3
"""simd_shuffle_down_sum: sums of consecutive chunks of 32 of a 1000-element int array
(the last chunk has 8 elements; the missing ones count as 0)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 1000
    x = rng.integers(-100000, 100000, n).astype("<i4")
    padded = np.zeros(1024, dtype=np.int64)
    padded[:n] = x
    sums = padded.reshape(32, 32).sum(axis=1)
    np.save(os.path.join(outdir, "in.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), sums.astype("<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
