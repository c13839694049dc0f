#!/usr/bin/env python3
"""16x16 tiled SGEMM inputs: C = A @ B (float64 product, cast to float32), M=37, N=45, K=29."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    M, N, K = 37, 45, 29
    A = rng.standard_normal((M, K)).astype("<f4")
    B = rng.standard_normal((K, N)).astype("<f4")
    C = A.astype(np.float64) @ B.astype(np.float64)
    save("A.npy", A.reshape(-1))
    save("B.npy", B.reshape(-1))
    save("shape.npy", np.array([M, N, K], dtype="<u4"))
    save("expected_2.npy", C.astype("<f4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
