#!/usr/bin/env python3
"""one_lane_reports: per SIMD-group of 32 consecutive elements, the report of lane
(slot * 7 + 3) % 32: (sum of the 32, its gid, its lane, its element); per threadgroup of 128,
1 where some element is above 0.5 (the inputs make every fourth threadgroup all below)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(77)
    n, group = 1024, 128
    x = rng.uniform(0.0, 1.0, n).astype("<f4")
    x.reshape(-1, group)[::4] *= 0.5  # threadgroups 0, 4: nothing above 0.5
    report = np.zeros((n // 32, 4), dtype="<f4")
    for slot in range(n // 32):
        lane = (slot * 7 + 3) % 32
        gid = slot * 32 + lane
        report[slot] = (x[slot * 32:(slot + 1) * 32].astype(np.float64).sum(), gid, lane, x[gid])
    flags = (x.reshape(-1, group) > 0.5).any(axis=1).astype("<u4")
    np.save(os.path.join(outdir, "x.npy"), x)
    np.save(os.path.join(outdir, "expected_1.npy"), report.ravel())
    np.save(os.path.join(outdir, "expected_2.npy"), flags)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
