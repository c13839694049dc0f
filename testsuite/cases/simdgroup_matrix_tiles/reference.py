#!/usr/bin/env python3
"""simdgroup_matrix_tiles: half operands of small integers and quarters, whose products and sums
are exact in float in any order, so numpy's A @ B + C is the exact answer."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(11)
    a = (rng.integers(-16, 17, (32, 32)) / 4).astype(np.float16)
    b = (rng.integers(-16, 17, (32, 16)) / 4).astype(np.float16)
    c = rng.integers(-100, 101, (32, 16)).astype(np.float32)
    np.save(os.path.join(outdir, "a.npy"), a.ravel())
    np.save(os.path.join(outdir, "b.npy"), b.ravel())
    np.save(os.path.join(outdir, "c.npy"), c.ravel())
    want = a.astype(np.float64) @ b.astype(np.float64) + c
    np.save(os.path.join(outdir, "expected_2.npy"), want.astype(np.float32).ravel())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
