#!/usr/bin/env python3
"""column_sums: column sums of a 64x32 float matrix."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    rows, cols = 64, 32
    m = rng.standard_normal((rows, cols)).astype("<f4")
    save("m.npy", m.reshape(-1))
    save("expected_1.npy", m.astype(np.float64).sum(axis=0).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
