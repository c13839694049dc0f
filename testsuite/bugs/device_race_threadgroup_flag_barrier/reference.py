#!/usr/bin/env python3
"""mirror_square_sum: scratch = x^2, y = x^2 + (x^2 of the mirrored element in its block of 256)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 1024, 256
    x = rng.standard_normal(n).astype("<f4")
    sq = x * x
    mirror = sq.reshape(-1, tg)[:, ::-1].reshape(-1)
    save("x.npy", x)
    save("expected_1.npy", sq)
    save("expected_2.npy", (sq + mirror).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
