#!/usr/bin/env python3
"""gather_sum: the sum of 512 floats (8 threadgroups of 64) and the block sums."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(512).astype("<f4")
    np.save(os.path.join(outdir, "x.npy"), x)
    blocks = x.astype(np.float64).reshape(8, 64).sum(axis=1)
    np.save(os.path.join(outdir, "expected_1.npy"), blocks.astype("<f4"))
    np.save(os.path.join(outdir, "expected_3.npy"), np.array([x.astype(np.float64).sum()], dtype="<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
