#!/usr/bin/env python3
"""depthwise_conv3: y[b,c,t] = sum_j k[c,j] * xpad[b,c,t+j], xpad = x zero-padded by 1 on each side."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    B, C, L = 2, 6, 50
    x = rng.standard_normal((B, C, L)).astype("<f4")
    k = rng.standard_normal((C, 3)).astype("<f4")
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1)))
    k64 = k.astype(np.float64)
    y = sum(k64[None, :, j, None] * xp[:, :, j:j + L] for j in range(3))
    np.save(os.path.join(outdir, "params.npy"), np.array([B, C, L], dtype="<u4"))
    np.save(os.path.join(outdir, "x.npy"), x.reshape(-1))
    np.save(os.path.join(outdir, "k.npy"), k.reshape(-1))
    np.save(os.path.join(outdir, "expected_3.npy"), y.astype("<f4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
