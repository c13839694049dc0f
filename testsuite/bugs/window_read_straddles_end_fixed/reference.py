#!/usr/bin/env python3
"""unfold_windows: the 997 windows of 4 consecutive floats of 1000, as rows."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(4321)
    x = rng.standard_normal(1000).astype("<f4")
    windows = np.lib.stride_tricks.sliding_window_view(x, 4)
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), np.ascontiguousarray(windows).ravel())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
