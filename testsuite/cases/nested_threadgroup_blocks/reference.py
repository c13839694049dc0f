#!/usr/bin/env python3
"""nested_threadgroup_blocks: per block of 64 (last 24): x - roll(x, -1) within the block,
the block max, and x - block max (single float32 subtractions, exact)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, block = 600, 64
    x = rng.standard_normal(n).astype("<f4")
    delta, bmax, rel = [], [], []
    for s in range(0, n, block):
        b = x[s:s + block]
        delta.append(b - np.roll(b, -1))
        bmax.append(b.max())
        rel.append(b - b.max())
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), np.concatenate(delta).astype("<f4"))
    np.save(os.path.join(outdir, "expected_2.npy"), np.array(bmax, dtype="<f4"))
    np.save(os.path.join(outdir, "expected_3.npy"), np.concatenate(rel).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
