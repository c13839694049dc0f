#!/usr/bin/env python3
"""transpose_padded: a 40x48 float matrix transposed into 48 rows of pitch 48 (zero padding)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    rows, cols = 40, 48
    pitch = (rows + 15) // 16 * 16
    m = rng.standard_normal((rows, cols)).astype("<f4")
    out = np.zeros((cols, pitch), dtype="<f4")
    out[:, :rows] = m.T
    save("in.npy", m.reshape(-1))
    save("dims.npy", np.array([rows, cols], dtype="<u4"))
    save("expected_1.npy", out.reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
