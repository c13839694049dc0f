#!/usr/bin/env python3
"""template_add_float: out = out + in in float32 (one rounding, exact match)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 1000
    x = rng.standard_normal(n).astype("<f4")
    y = rng.standard_normal(n).astype("<f4")
    np.save(os.path.join(outdir, "in.npy"), x)
    np.save(os.path.join(outdir, "out.npy"), y)
    np.save(os.path.join(outdir, "expected_1.npy"), (y + x).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
