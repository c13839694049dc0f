#!/usr/bin/env python3
"""block_sums: sums of blocks of 256 of 600 floats (the last block has 88)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 600, 256
    x = rng.uniform(-1.0, 1.0, n).astype("<f4")
    sums = [x[s:s + tg].astype(np.float64).sum() for s in range(0, n, tg)]
    save("x.npy", x)
    save("expected_1.npy", np.array(sums).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
