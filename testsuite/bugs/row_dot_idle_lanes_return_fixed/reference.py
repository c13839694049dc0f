#!/usr/bin/env python3
"""row_dot: y = A x for a 13 x 3 float matrix."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(77)
    M, K = 13, 3
    A = rng.standard_normal((M, K)).astype("<f4")
    x = rng.standard_normal(K).astype("<f4")
    np.save(os.path.join(outdir, "A.npy"), A.reshape(-1))
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_2.npy"), (A.astype(np.float64) @ x.astype(np.float64)).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
