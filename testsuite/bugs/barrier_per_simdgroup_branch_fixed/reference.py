#!/usr/bin/env python3
"""scale_by_head_max: each element over the largest of its threadgroup's first 32 (512 floats,
threadgroups of 128)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(4242)
    x = rng.uniform(1.0, 2.0, 512).astype("<f4")
    head = x.reshape(4, 128)[:, :32].max(axis=1)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (x.reshape(4, 128) / head[:, None]).ravel().astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
