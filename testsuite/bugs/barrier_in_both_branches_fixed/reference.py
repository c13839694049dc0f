#!/usr/bin/env python3
"""abs_tile_transpose: |x| of a 16x16 matrix, transposed within each 8x8 tile."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    H, W = 16, 16
    x = rng.standard_normal((H, W)).astype("<f4")
    for by in range(0, H, 8):
        for bx in range(0, W, 8):
            blk = x[by:by + 8, bx:bx + 8]
            assert (blk >= 0).any() and (blk < 0).any()   # both branches taken in every threadgroup
    y = np.abs(x).reshape(H // 8, 8, W // 8, 8).transpose(0, 3, 2, 1).reshape(H, W)
    save("x.npy", x.reshape(-1))
    save("expected_1.npy", y.astype("<f4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
