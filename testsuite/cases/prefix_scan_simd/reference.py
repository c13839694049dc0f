#!/usr/bin/env python3
"""prefix_scan_simd: per block of 256 elements (last block 232): exclusive scan
(cumsum - x), inclusive scan (cumsum) and the block total."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n, tg = 1000, 256
    x = rng.integers(-50, 51, n).astype("<i4")
    incl = np.zeros(n, dtype=np.int64)
    totals = []
    for start in range(0, n, tg):
        blk = x[start:start + tg].astype(np.int64)
        incl[start:start + tg] = np.cumsum(blk)
        totals.append(blk.sum())
    excl = incl - x
    np.save(os.path.join(outdir, "in.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), excl.astype("<i4"))
    np.save(os.path.join(outdir, "expected_2.npy"), incl.astype("<i4"))
    np.save(os.path.join(outdir, "expected_3.npy"), np.array(totals, dtype="<i4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
