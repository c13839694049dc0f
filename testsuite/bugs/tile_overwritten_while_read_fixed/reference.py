#!/usr/bin/env python3
"""divide_by_block_max: each block of 64 elements divided by the block's maximum."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(4321)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 1024, 64
    x = rng.uniform(0.5, 2.0, n).astype("<f4")
    save("x.npy", x)
    blocks = x.reshape(-1, tg)
    save("expected_1.npy", (blocks / blocks.max(axis=1, keepdims=True)).reshape(-1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
