#!/usr/bin/env python3
"""lower_triangular_matvec: y = L x for a 64x64 lower-triangular L, and sums of y per block of 32."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 64
    L = np.tril(rng.standard_normal((n, n))).astype("<f4")
    x = rng.standard_normal(n).astype("<f4")
    y = L.astype(np.float64) @ x.astype(np.float64)
    save("L.npy", L.reshape(-1))
    save("x.npy", x)
    save("expected_2.npy", y.astype("<f4"))
    save("expected_3.npy", y.reshape(-1, 32).sum(axis=1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
