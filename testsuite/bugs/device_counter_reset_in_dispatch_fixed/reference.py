#!/usr/bin/env python3
"""count_all: elements above 0 among 512 normal samples."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(78)
    x = rng.standard_normal(512).astype("<f4")
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), np.array([(x > 0.0).sum()], dtype="<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
