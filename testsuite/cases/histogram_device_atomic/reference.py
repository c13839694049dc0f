#!/usr/bin/env python3
"""histogram_device_atomic: 40-bin histogram of ints in [-1000, 1000) (bin width 50), global min and max."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 5000
    # Not uniform, so the bin counts differ a lot (and collisions on hot bins are frequent).
    v = np.clip(np.round(rng.normal(100.0, 350.0, n)), -1000, 999).astype("<i4")
    hist, _ = np.histogram(v, bins=40, range=(-1000, 1000))
    np.save(os.path.join(outdir, "values.npy"), v)
    np.save(os.path.join(outdir, "expected_1.npy"), hist.astype("<u4"))
    np.save(os.path.join(outdir, "expected_2.npy"), np.array([v.min()], dtype="<i4"))
    np.save(os.path.join(outdir, "expected_3.npy"), np.array([v.max()], dtype="<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
