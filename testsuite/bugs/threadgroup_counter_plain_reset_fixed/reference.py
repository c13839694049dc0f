#!/usr/bin/env python3
"""count_per_group: elements above 0 per threadgroup of 128, for 4 threadgroups."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(77)
    x = rng.standard_normal(512).astype("<f4")
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (x.reshape(4, 128) > 0.0).sum(axis=1).astype("<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
