#!/usr/bin/env python3
"""half_arith: numpy float16 arithmetic (numpy rounds every float16 operation to float16,
which for + - * is the correctly rounded IEEE result), same operations and order as the kernel."""
import os
import sys
import numpy as np

H = np.float16


def signed_halves(rng, n, lo, hi):
    mag = rng.uniform(lo, hi, n)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return (mag * sign).astype(H)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 333
    a = signed_halves(rng, n, 0.25, 8.0)
    b = rng.uniform(0.25, 8.0, n).astype(H)          # positive, so b + 1.5 stays away from 0
    c = signed_halves(rng, n, 0.25, 8.0)
    seq = rng.uniform(0.25, 8.0, (n, 8)).astype(H)   # positive: the running sum never nears 0
    # make some exact ties / equal operands
    b[::11] = a[::11].__abs__()
    c[::13] = a[::13]

    out = np.zeros((n, 6), dtype=H)
    out[:, 0] = (a + b) * c
    out[:, 1] = (a - c) * (b + H(1.5))
    out[:, 2] = np.maximum(a, b) - np.minimum(b, c)
    out[:, 3] = (a * b) * c
    acc = np.zeros(n, dtype=H)
    for k in range(8):
        acc = acc + seq[:, k]
    out[:, 4] = acc * H(0.125)
    out[:, 5] = (a.astype(np.float32) * b.astype(np.float32)).astype(H) - c

    hv = np.stack([a, b, c, np.full(n, 2.0, dtype=H)], axis=1)
    out4 = (hv - hv[:, [1, 2, 3, 0]]) * hv[:, [2, 0, 1, 3]]

    for arr in (out, out4):
        assert arr.dtype == H and np.all(np.isfinite(arr))
        nz = np.abs(arr.astype(np.float64))
        assert np.all((nz == 0) | (nz >= 2.0 ** -14)), "a result is subnormal"

    np.save(os.path.join(outdir, "a.npy"), a.astype("<f2"))
    np.save(os.path.join(outdir, "b.npy"), b.astype("<f2"))
    np.save(os.path.join(outdir, "c.npy"), c.astype("<f2"))
    np.save(os.path.join(outdir, "seq.npy"), seq.astype("<f2").reshape(-1))
    np.save(os.path.join(outdir, "expected_4.npy"), out.astype("<f2").reshape(-1))
    np.save(os.path.join(outdir, "expected_5.npy"), out4.astype("<f2").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
