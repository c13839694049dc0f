#!/usr/bin/env python3
"""scale_rows: a 9 x 7 float32 matrix times 1.5."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(63).astype("<f4")
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), (x.astype(np.float64) * 1.5).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
