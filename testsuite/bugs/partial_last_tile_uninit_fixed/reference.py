#!/usr/bin/env python3
"""block_sum: each element of a 64-element block gets the block's sum (the last block padded
with zeros), added in order in float32 as the kernel does."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(2468)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg, grid = 1000, 64, 1024
    x = rng.standard_normal(n).astype("<f4")
    save("x.npy", x)
    tiles = np.zeros(grid, "<f4")
    tiles[:n] = x
    tiles = tiles.reshape(-1, tg)
    sums = np.zeros(tiles.shape[0], "<f4")
    for i in range(tg):
        sums = (sums + tiles[:, i]).astype("<f4")
    save("expected_1.npy", np.repeat(sums, tg)[:n])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
