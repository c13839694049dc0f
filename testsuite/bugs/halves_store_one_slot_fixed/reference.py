#!/usr/bin/env python3
"""fold_halves: out[t*32 + i] = x[t*64 + i] + x[t*64 + i + 32]."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(64)
    x = rng.standard_normal(256).astype("<f4")
    blocks = x.reshape(-1, 64)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (blocks[:, :32] + blocks[:, 32:]).ravel().astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
