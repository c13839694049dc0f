#!/usr/bin/env python3
"""qr_col_dot: c = Q.T @ v with Q of shape (97, 13)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    m, k = 97, 13
    Q = rng.standard_normal((m, k)).astype("<f4")
    v = rng.standard_normal(m).astype("<f4")
    c = Q.astype(np.float64).T @ v.astype(np.float64)
    np.save(os.path.join(outdir, "Q.npy"), Q.reshape(-1))
    np.save(os.path.join(outdir, "v.npy"), v)
    np.save(os.path.join(outdir, "shape.npy"), np.array([m, k], dtype="<u4"))
    np.save(os.path.join(outdir, "expected_3.npy"), c.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
