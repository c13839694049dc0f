#!/usr/bin/env python3
"""sums_from_first: per group of 64 floats, the sum of their differences from the group's first."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(2468)
    x = rng.standard_normal(256).astype("<f4")
    groups = x.astype(np.float64).reshape(-1, 64)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (groups - groups[:, :1]).sum(axis=1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
