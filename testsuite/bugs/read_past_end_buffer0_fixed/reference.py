#!/usr/bin/env python3
"""concat: a (600 floats) followed by b (400 floats)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    na, nb = 600, 400
    a = rng.standard_normal(na).astype("<f4")
    b = rng.standard_normal(nb).astype("<f4")
    save("a.npy", a)
    save("b.npy", b)
    save("expected_2.npy", np.concatenate([a, b]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
