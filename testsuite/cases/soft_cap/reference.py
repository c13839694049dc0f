#!/usr/bin/env python3
"""soft_cap: y = cap * tanh(x / cap) for the first 1000 elements; the rest of the
1010-element output buffer keeps its fill value -7 (threads past `size` return)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, cap = 1000, 5.0
    # 1024 threads run; only `size` = 1000 of them may write. Input is 1024 long so
    # no thread reads out of bounds even if the guard were wrong.
    x = (rng.standard_normal(1024) * 10.0).astype("<f4")
    y = np.full(1010, -7.0, dtype=np.float64)
    y[:n] = cap * np.tanh(x[:n].astype(np.float64) / cap)
    np.save(os.path.join(outdir, "input.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), y.astype("<f4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
