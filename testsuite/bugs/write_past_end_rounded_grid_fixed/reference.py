#!/usr/bin/env python3
"""linspace_fill: -2.5 + 0.01 * i in float32 for i < 1000 (no inputs)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 1000
    start, step = np.float32(-2.5), np.float32(0.01)
    save("expected_0.npy", (start + step * np.arange(n, dtype=np.float32)).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
