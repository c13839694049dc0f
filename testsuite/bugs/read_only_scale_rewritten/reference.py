#!/usr/bin/env python3
"""scale_all: 256 floats and a scale (the kernel races, so there is no output to compare)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(77)
    np.save(os.path.join(outdir, "x.npy"), rng.standard_normal(256).astype("<f4"))
    np.save(os.path.join(outdir, "scale.npy"), np.array([0.5], dtype="<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
