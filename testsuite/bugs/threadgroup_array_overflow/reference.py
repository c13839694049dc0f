#!/usr/bin/env python3
"""forward_difference_tg: x[i + 1] - x[i] for 1024 floats, 0 for the last."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 1024
    x = rng.standard_normal(n).astype("<f4")
    nxt = np.concatenate([x[1:], x[-1:]])
    save("x.npy", x)
    save("expected_1.npy", (nxt - x).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
