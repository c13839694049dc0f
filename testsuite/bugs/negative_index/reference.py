#!/usr/bin/env python3
"""blur3: 3-point blur with replicated borders of 1000 floats."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 1000
    x = rng.standard_normal(n).astype("<f4")
    left = np.concatenate([x[:1], x[:-1]])
    right = np.concatenate([x[1:], x[-1:]])
    y = np.float32(0.25) * left + np.float32(0.5) * x + np.float32(0.25) * right
    save("x.npy", x)
    save("expected_1.npy", y.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
