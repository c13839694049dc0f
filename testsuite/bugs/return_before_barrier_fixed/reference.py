#!/usr/bin/env python3
"""backward_difference: d[i] = x[i] - x[i - 1] for 1000 halves (x[-1] = 0)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 1000
    x = rng.uniform(-8.0, 8.0, n).astype("<f2")
    prev = np.concatenate([np.zeros(1, dtype="<f2"), x[:-1]])
    save("x.npy", x)
    save("expected_1.npy", (x - prev).astype("<f2"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
