#!/usr/bin/env python3
"""swap_pairs: out[i] = 2 x[i ^ 1]."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(77)
    n = 128
    x = rng.standard_normal(n).astype("<f4")
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_2.npy"), (2 * x[np.arange(n) ^ 1]).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
