#!/usr/bin/env python3
"""template_block_reverse: reverse each block of 128 (last block 104) and multiply by 0.5
(float) / arithmetic-shift right by 1 (int). Writes the data of the i32 instantiation."""
import os
import sys
import numpy as np


def reverse_blocks(x, block):
    return np.concatenate([x[s:s + block][::-1] for s in range(0, len(x), block)])


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, block = 1000, 128
    rng.standard_normal(n)  # same random stream as the float instantiation
    xi = rng.integers(-100000, 100000, n).astype("<i4")
    np.save(os.path.join(outdir, "in_i32.npy"), xi)
    np.save(os.path.join(outdir, "expected_i32.npy"), (reverse_blocks(xi, block) >> 1).astype("<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
