#!/usr/bin/env python3
"""histogram_threadgroup_atomic: np.bincount of 3000 values in [0, 100)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, nbins = 3000, 100
    v = rng.binomial(99, 0.3, n).astype("<u4")   # skewed: many empty bins, a few hot ones
    np.save(os.path.join(outdir, "values.npy"), v)
    np.save(os.path.join(outdir, "expected_1.npy"), np.bincount(v, minlength=nbins).astype("<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
