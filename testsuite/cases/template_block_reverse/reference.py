#!/usr/bin/env python3
"""template_block_reverse: reverse each block of 128 (last block 104) and multiply by 0.5
(float) / arithmetic-shift right by 1 (int). Writes the data of the f32 instantiation."""
import os
import sys
import numpy as np


def reverse_blocks(x, block):
    return np.concatenate([x[s:s + block][::-1] for s in range(0, len(x), block)])


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, block = 1000, 128
    xf = rng.standard_normal(n).astype("<f4")
    np.save(os.path.join(outdir, "in_f32.npy"), xf)
    np.save(os.path.join(outdir, "expected_f32.npy"), (reverse_blocks(xf, block) * np.float32(0.5)).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
