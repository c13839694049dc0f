#!/usr/bin/env python3
"""simd_scan_tg: inclusive cumsum of each group of 32 halves (small integers, exact)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 256
    x = rng.integers(0, 4, n).astype("<f2")   # small integers: every partial sum is exact in half
    y = np.concatenate([np.cumsum(x[s:s + 32].astype(np.float64)) for s in range(0, n, 32)])
    save("x.npy", x)
    save("expected_1.npy", y.astype("<f2"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
