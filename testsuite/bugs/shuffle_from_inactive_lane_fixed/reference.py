#!/usr/bin/env python3
"""minus_last_lane: each block of 32 (the last has 20) minus its last element."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 84, 32
    x = rng.standard_normal(n).astype("<f4")
    out = np.empty(n, dtype=np.float32)
    for s in range(0, n, tg):
        blk = x[s:s + tg]
        out[s:s + tg] = blk - blk[-1]
    save("x.npy", x)
    save("expected_1.npy", out.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
