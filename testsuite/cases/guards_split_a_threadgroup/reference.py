#!/usr/bin/env python3
"""guards_split_a_threadgroup: below[i] = 2 x[i] for i < 150 (0 beyond), from[i] = x[i] + 1 for
i >= 70 (0 before), 256 threads in threadgroups of 64."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(2611)
    x = rng.standard_normal(256).astype("<f4")
    below = np.zeros(256, np.float32)
    below[:150] = x[:150] * np.float32(2)
    after = np.zeros(256, np.float32)
    after[70:] = x[70:] + np.float32(1)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), below)
    np.save(os.path.join(outdir, "expected_2.npy"), after)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
