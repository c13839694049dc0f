#!/usr/bin/env python3
"""bitonic_sort_threadgroup: np.sort of each block of 256 keys (the last block has 176)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, block = 1200, 256
    x = rng.standard_normal(n).astype("<f4")
    x[::37] = 0.5           # some duplicate keys
    out = np.concatenate([np.sort(x[s:s + block]) for s in range(0, n, block)])
    np.save(os.path.join(outdir, "in.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), out.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
