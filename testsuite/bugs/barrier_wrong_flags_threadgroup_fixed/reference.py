#!/usr/bin/env python3
"""block_reverse: each block of 256 elements reversed."""
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
    save("x.npy", x)
    save("expected_1.npy", x.reshape(-1, tg)[:, ::-1].reshape(-1).copy())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
