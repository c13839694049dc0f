#!/usr/bin/env python3
"""allreduce_butterfly: every element replaced by the sum of its block of 256."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 512, 256
    x = rng.uniform(-1.0, 1.0, n).astype("<f4")
    sums = x.astype(np.float64).reshape(-1, tg).sum(axis=1)
    save("x.npy", x)
    save("expected_1.npy", np.repeat(sums, tg).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
