#!/usr/bin/env python3
"""pair_sums: the row sums of a 5 x 4 float32 tensor, packed as raw bytes: alone (tensor.npy, 80
bytes) and followed by another 4 x 4 tensor in the same buffer (packed.npy, 144 bytes)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, 4)).astype("<f4")
    other = rng.standard_normal((4, 4)).astype("<f4")
    np.save(os.path.join(outdir, "tensor.npy"), np.frombuffer(x.tobytes(), np.uint8))
    np.save(os.path.join(outdir, "packed.npy"), np.frombuffer(x.tobytes() + other.tobytes(), np.uint8))
    np.save(os.path.join(outdir, "expected_2.npy"), x.astype(np.float64).sum(axis=1).astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
