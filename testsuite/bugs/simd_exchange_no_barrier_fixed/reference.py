#!/usr/bin/env python3
"""simd_shift_up: half values shifted up by one lane within each SIMD-group of 32 (lane 0 gets 0)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 256
    x = rng.uniform(-4.0, 4.0, n).astype("<f2")
    y = np.zeros(n, dtype="<f2")
    for i in range(n):
        if i % 32:
            y[i] = x[i - 1]
    save("x.npy", x)
    save("expected_1.npy", y)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
