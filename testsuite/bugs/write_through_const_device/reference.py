#!/usr/bin/env python3
"""relu_and_clip: y = max(x, 0) and x clipped to at most 1 in place, 512 halves."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)

    def save(name, array):
        np.save(os.path.join(outdir, name), array)

    n = 512
    x = rng.uniform(-4.0, 4.0, n).astype("<f2")
    save("x.npy", x)
    save("expected_0.npy", np.minimum(x, np.float16(1.0)).astype("<f2"))
    save("expected_1.npy", np.maximum(x, np.float16(0.0)).astype("<f2"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
