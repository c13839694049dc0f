#!/usr/bin/env python3
"""lambda_constant_weights: y = 0.25*x[i-1] + 0.5*x[i] + 0.25*x[i+1] with indices clamped to [0, n-1]."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 1000
    x = rng.standard_normal(n).astype("<f4")
    xp = np.concatenate([x[:1], x, x[-1:]]).astype(np.float64)
    y = 0.25 * xp[:-2] + 0.5 * xp[1:-1] + 0.25 * xp[2:]
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), y.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
