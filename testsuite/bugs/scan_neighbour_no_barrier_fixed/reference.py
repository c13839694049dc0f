#!/usr/bin/env python3
"""hillis_steele_scan: inclusive cumsum of each block of 256 elements."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 1024, 256
    x = rng.uniform(0.0, 1.0, n).astype("<f4")
    incl = np.concatenate([np.cumsum(x[s:s + tg].astype(np.float64)) for s in range(0, n, tg)])
    save("in.npy", x)
    save("expected_1.npy", incl.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
