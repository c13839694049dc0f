#!/usr/bin/env python3
"""constant_params_struct: Params {n=900, alpha=1.75, beta=-0.3, offset=17} packed as uint32
words (float fields as their IEEE bit patterns); y[i] = alpha*x[i+offset] + beta for i < n,
the 10 trailing elements of y keep their fill value 42."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, offset = 900, 17
    alpha, beta = np.float32(1.75), np.float32(-0.3)
    x = rng.standard_normal(n + offset).astype("<f4")
    params = np.array([n, alpha.view(np.uint32), beta.view(np.uint32), offset], dtype="<u4")
    y = np.full(910, 42.0)
    y[:n] = np.float64(alpha) * x[offset:offset + n].astype(np.float64) + np.float64(beta)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "params.npy"), params)
    np.save(os.path.join(outdir, "expected_1.npy"), y.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
