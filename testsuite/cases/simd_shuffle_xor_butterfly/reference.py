#!/usr/bin/env python3
"""simd_shuffle_xor_butterfly: for each chunk of 32 consecutive elements (last chunk 12):
x - max(chunk) (one float32 subtraction, exact) and the number of positive values in the chunk."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 300
    x = (rng.standard_normal(n) * 3.0).astype("<f4")
    centered = np.zeros(n, dtype=np.float32)
    count = np.zeros(n, dtype=np.int32)
    for s in range(0, n, 32):
        chunk = x[s:s + 32]
        centered[s:s + 32] = chunk - chunk.max()      # float32 - float32
        count[s:s + 32] = int((chunk > 0).sum())
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), centered.astype("<f4"))
    np.save(os.path.join(outdir, "expected_2.npy"), count.astype("<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
