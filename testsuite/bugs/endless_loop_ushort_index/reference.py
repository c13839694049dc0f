#!/usr/bin/env python3
"""strided_sum: lane l of 32 sums x[l::32] of 65536 floats (float32, in order)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n, tg = 65536, 32
    x = rng.uniform(0.0, 1.0, n).astype("<f4")
    s = np.zeros(tg, dtype=np.float32)
    for k in range(n // tg):   # the kernel's order: lane l adds x[l], x[l + 32], ... in float32
        s = s + x[k * tg:(k + 1) * tg]
    save("x.npy", x)
    save("expected_1.npy", s.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
