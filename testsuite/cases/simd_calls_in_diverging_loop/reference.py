#!/usr/bin/env python3
"""simd_calls_in_diverging_loop: per iteration, each SIMD-group (32 lanes) and quad (4 lanes)
function covers the lanes that took its branch in that iteration (numpy, lane sets by hand)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1053)
    tg, iterations = 64, 4
    taken = (rng.random((iterations, tg)) < 0.7).astype("<u4")
    taken[2, :] = 1  # one iteration where every lane is back together
    taken[3, 3] = 0  # and one where a single lane of a quad leaves
    out = np.zeros((iterations, tg, 2), dtype=np.int64)
    for i in range(iterations):
        v = np.arange(tg) * 10 + i
        for lane in range(tg):
            branch = taken[i, lane]
            simd = [u for u in range(tg) if u // 32 == lane // 32 and taken[i, u] == branch]
            quad = [u for u in simd if u // 4 == lane // 4]
            if branch:
                out[i, lane] = (v[simd].sum(), v[quad].min())
            else:
                out[i, lane] = (100000 + v[simd].max(), 100000 + v[quad].max())
    np.save(os.path.join(outdir, "taken.npy"), taken.ravel())
    np.save(os.path.join(outdir, "expected_0.npy"), out.ravel().astype("<u4"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
