#!/usr/bin/env python3
"""scatter_add_half: 20 threads add 1, 2, 3 or 4 (exact in half, in any order) to 5 halves."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    n, threads = 5, 20
    x = (np.arange(threads) % 4 + 1).astype("<f2")
    out = np.zeros(n + 1, "<f2")  # padded to whole words (the fixed host); the bug's has n
    for i in range(threads):
        out[i % n] += x[i]
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), out)
    bug = out[:n].copy()
    bug[n - 1] = 0  # its word is refused: the bug's output keeps it as the host zeroed it
    np.save(os.path.join(outdir, "expected_1_bug.npy"), bug)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
