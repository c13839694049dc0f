#!/usr/bin/env python3
"""block_sums: the sum of each threadgroup's 256 elements of x, n = 900 (4 threadgroups)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(917)
    n = 900
    x = rng.uniform(-1.0, 1.0, n).astype("<f4")
    padded = np.concatenate([x, np.zeros(1024 - n, dtype="<f4")]).astype(np.float64)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), padded.reshape(4, 256).sum(axis=1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
