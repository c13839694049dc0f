#!/usr/bin/env python3
"""row_sum_simd_combine: row sums of a 7x1013 matrix and the matrix divided by its row sums."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    rows, cols = 7, 1013
    x = rng.uniform(0.5, 1.5, (rows, cols)).astype("<f4")
    x64 = x.astype(np.float64)
    s = x64.sum(axis=1)
    y = x64 / s[:, None]
    np.save(os.path.join(outdir, "x.npy"), x.reshape(-1))
    np.save(os.path.join(outdir, "expected_1.npy"), s.astype("<f4"))
    np.save(os.path.join(outdir, "expected_2.npy"), y.astype("<f4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
