#!/usr/bin/env python3
"""simd_reduction: per block of 256 consecutive elements (the last block
holds the remaining 136): sum, max, and x - block_mean for every element."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, tg = 5000, 256
    x = rng.uniform(-1.0, 1.0, n).astype("<f4")
    x64 = x.astype(np.float64)
    nblocks = -(-n // tg)
    sums = np.zeros(nblocks)
    maxs = np.zeros(nblocks, dtype=np.float32)
    centered = np.zeros(n)
    for b in range(nblocks):
        blk = x64[b * tg:(b + 1) * tg]
        sums[b] = blk.sum()
        maxs[b] = x[b * tg:(b + 1) * tg].max()
        centered[b * tg:(b + 1) * tg] = blk - blk.mean()
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), sums.astype("<f4"))
    np.save(os.path.join(outdir, "expected_2.npy"), maxs.astype("<f4"))
    np.save(os.path.join(outdir, "expected_3.npy"), centered.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
