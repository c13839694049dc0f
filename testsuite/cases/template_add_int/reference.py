#!/usr/bin/env python3
"""template_add_int: out = out + in in int32."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 777
    x = rng.integers(-1_000_000, 1_000_000, n).astype("<i4")
    y = rng.integers(-1_000_000, 1_000_000, n).astype("<i4")
    np.save(os.path.join(outdir, "in.npy"), x)
    np.save(os.path.join(outdir, "out.npy"), y)
    np.save(os.path.join(outdir, "expected_1.npy"), (y + x).astype("<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
