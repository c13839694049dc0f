#!/usr/bin/env python3
"""block_sum_accumulate: the sum of 1024 uints in [1, 100)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 1024
    x = rng.integers(1, 100, n).astype("<u4")
    save("x.npy", x)
    save("expected_1.npy", np.array([x.sum()], dtype="<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
