#!/usr/bin/env python3
"""scale_pairs_to_half: x times its pair's weight, rounded to float16."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(97531)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    pairs = 256
    x = rng.standard_normal(2 * pairs).astype("<f4")
    w = rng.uniform(0.5, 2.0, pairs).astype("<f4")
    save("x.npy", x)
    save("w.npy", w)
    save("expected_2.npy", (x * np.repeat(w, 2)).astype("<f2"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
