#!/usr/bin/env python3
"""simdgroup_matrix_half_simdgroup_fixed: 8 blocks of 8x8 integers (exact in float whatever the
order of the sums) times one 8x8 matrix, plus one: numpy's product."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(7)
    a = rng.integers(-8, 9, (8, 8, 8)).astype(np.float32)
    b = rng.integers(-8, 9, (8, 8)).astype(np.float32)
    np.save(os.path.join(outdir, "a.npy"), a.ravel())
    np.save(os.path.join(outdir, "b.npy"), b.ravel())
    np.save(os.path.join(outdir, "expected_2.npy"), (a @ b + 1).astype(np.float32).ravel())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
