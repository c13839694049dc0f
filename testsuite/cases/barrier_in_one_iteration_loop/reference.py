#!/usr/bin/env python3
"""k: out[i] = x[i] + x[right neighbour of i within its threadgroup of 64], one round."""
import os
import sys
import numpy as np

if __name__ == "__main__":
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    x = np.random.default_rng(8).integers(-100, 100, 128).astype("<f4")  # exact sums
    blocks = x.reshape(2, 64)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (blocks + np.roll(blocks, -1, axis=1)).reshape(-1).astype("<f4"))
