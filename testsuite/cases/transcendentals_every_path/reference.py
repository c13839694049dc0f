#!/usr/bin/env python3
"""transcendentals: exp, log, sin, cos, pow, atan2 and tanh + exp2 + log2 of 1003 floats, in float64."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(21)
    n = 1003
    x = rng.uniform(-4, 4, n).astype("<f4")
    y = rng.uniform(0.1, 8, n).astype("<f4")
    a, b = x.astype(np.float64), y.astype(np.float64)
    out = np.stack([np.exp(a), np.log(b), np.sin(a), np.cos(a), np.power(b, a), np.arctan2(a, b),
                    np.tanh(a) + np.exp2(a) + np.log2(b)], axis=1)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "y.npy"), y)
    np.save(os.path.join(outdir, "expected_2.npy"), out.astype("<f4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
