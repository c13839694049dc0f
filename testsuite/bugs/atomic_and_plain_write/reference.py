#!/usr/bin/env python3
"""count_above: the number of 128 normal samples above 0 (every SIMD-group of 32 has at least one)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 128
    x = rng.standard_normal(n).astype("<f4")
    per_simd = (x.reshape(4, 32) > 0.0).sum(axis=1)
    assert (per_simd > 0).all()   # every SIMD-group's count changes the counter
    save("x.npy", x)
    save("expected_1.npy", np.array([(x > 0.0).sum()], dtype="<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
