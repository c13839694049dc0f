#!/usr/bin/env python3
"""exp_elementwise: out = exp(a), 1000 elements, inputs in [-10, 10)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    a = rng.uniform(-10.0, 10.0, 1000).astype("<f4")
    out = np.exp(a.astype(np.float64))
    np.save(os.path.join(outdir, "a.npy"), a)
    np.save(os.path.join(outdir, "expected_2.npy"), out.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
