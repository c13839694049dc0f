#!/usr/bin/env python3
"""histogram_tg_arg: np.bincount of 1024 values in [0, 100)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, nbins = 1024, 100
    v = rng.integers(0, nbins, n).astype("<u4")
    save("values.npy", v)
    save("expected_1.npy", np.bincount(v, minlength=nbins).astype("<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
