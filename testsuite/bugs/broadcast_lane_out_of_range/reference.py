#!/usr/bin/env python3
"""subtract_pivot: halves minus element 40 of their block of 64."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg, pivot = 256, 64, 40
    x = rng.uniform(-4.0, 4.0, n).astype("<f2")
    p = np.repeat(x[pivot::tg], tg)
    save("x.npy", x)
    save("expected_1.npy", (x - p).astype("<f2"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
