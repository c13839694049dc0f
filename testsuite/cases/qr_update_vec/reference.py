#!/usr/bin/env python3
"""qr_update_vec: out = v - Q @ c with Q of shape (97, 13) (one Gram-Schmidt projection step)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    m, k = 97, 13
    Q = rng.standard_normal((m, k)).astype("<f4")
    c = rng.standard_normal(k).astype("<f4")
    v = rng.standard_normal(m).astype("<f4")
    out = v.astype(np.float64) - Q.astype(np.float64) @ c.astype(np.float64)
    np.save(os.path.join(outdir, "Q.npy"), Q.reshape(-1))
    np.save(os.path.join(outdir, "c.npy"), c)
    np.save(os.path.join(outdir, "v.npy"), v)
    np.save(os.path.join(outdir, "shape.npy"), np.array([m, k], dtype="<u4"))
    np.save(os.path.join(outdir, "expected_4.npy"), out.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
