"""Expected dispatch built-ins, computed from the Metal rules independently of any kernel:
* dispatch "threads": groups = ceil(grid / tg) per dimension; a group's ACTUAL size is
  min(tg, grid - group*tg) per dimension (threads_per_threadgroup); dispatch_threads_per_threadgroup
  is the requested tg; threads_per_grid = grid.
* dispatch "threadgroups": grid counts groups, all groups are full, threads_per_grid = grid*tg.
* thread_index_in_threadgroup = x + y*ax + z*ax*ay with (ax, ay) the actual group size;
  SIMD-groups are 32 consecutive linear indices: lane = index % 32, simdgroup = index // 32;
  threads_per_simdgroup = 32 (also for a partial last SIMD-group).
Each thread's record goes to slot x + y*W + z*W*H of the grid of threads (W, H = threads_per_grid)."""
import itertools
import os
import sys
import numpy as np

SIMD = 32


def records(grid, tg, dispatch, ncomp):
    if dispatch == "threads":
        threads = list(grid)
        groups = [-(-g // t) for g, t in zip(grid, tg)]
    else:
        threads = [g * t for g, t in zip(grid, tg)]
        groups = list(grid)
    rec_len = 7 * ncomp + 4
    out = np.full((threads[0] * threads[1] * threads[2], rec_len), 0xDEADBEEF, dtype=np.uint32)
    for g in itertools.product(*(range(n) for n in groups)):
        actual = [min(t, th - gi * t) for gi, t, th in zip(g, tg, threads)]
        ax, ay, az = actual
        for lz in range(az):
            for ly in range(ay):
                for lx in range(ax):
                    loc = (lx, ly, lz)
                    pos = [gi * t + li for gi, t, li in zip(g, tg, loc)]
                    lidx = lx + ly * ax + lz * ax * ay
                    vecs = [pos, loc, g, actual, groups, threads, tg]
                    row = [v[d] for v in vecs for d in range(ncomp)]
                    row += [lidx, lidx % SIMD, lidx // SIMD, SIMD]
                    slot = pos[0] + threads[0] * (pos[1] + threads[1] * pos[2])
                    out[slot] = row
    assert not np.any(out == 0xDEADBEEF), "some grid slot not covered"
    return out.reshape(-1)


def write(outdir, grid, tg, dispatch, ncomp):
    os.makedirs(outdir, exist_ok=True)
    np.save(os.path.join(outdir, "expected_0.npy"), records(grid, tg, dispatch, ncomp).astype("<u4"))
