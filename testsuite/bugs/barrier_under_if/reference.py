#!/usr/bin/env python3
"""fold_block_sum: sums of blocks of 32 floats."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 256, 32
    x = rng.standard_normal(n).astype("<f4")
    save("in.npy", x)
    save("expected_1.npy", x.astype(np.float64).reshape(-1, tg).sum(axis=1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
