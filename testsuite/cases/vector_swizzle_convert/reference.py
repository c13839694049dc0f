#!/usr/bin/env python3
"""vector_swizzle_convert: the component formulas of each output written out per component
in float32/float16/int32 numpy (each float op rounds once, as in MSL)."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    n = 500
    f = np.float32
    a = rng.uniform(-8.0, 8.0, (n, 4)).astype("<f4")
    s = rng.uniform(-8.0, 8.0, n).astype("<f4")
    vx, vy, vz, vw = (a[:, i] for i in range(4))
    x = s

    p0 = vz + vy                      # float32 + float32
    p1 = vw + vx
    out_f = np.stack([p0 - x, p0 - vy, (p0 - x) * f(0.5), p1 - vx], axis=1)

    i = np.trunc(a * f(10.0)).astype(np.int32)     # float32 multiply, then toward zero
    i0, i1, i2, i3 = (i[:, k] for k in range(4))
    out_i = np.stack([i0, i3 + 1, i2, i1 - 2], axis=1)

    hx, hvx, hvy = x.astype(np.float16), vx.astype(np.float16), vy.astype(np.float16)
    one = np.ones(n, dtype=np.float16)
    out_h = np.stack([one, hvy, hx, hvx], axis=1)           # h.zwxy with h = (x, vx, 1, vy)

    # float4(h) + float4(iv.wzyx) with iv = (i0, i3+1, i2, i1-2)
    out_mix = np.stack([hx.astype(f) + (i1 - 2).astype(f),
                        hvx.astype(f) + i2.astype(f),
                        one.astype(f) + (i3 + 1).astype(f),
                        hvy.astype(f) + i0.astype(f)], axis=1)

    # int4(h.bgra * 4.0h), h.bgra = (1, vx, x, vy), half multiply then toward zero
    four = np.float16(4.0)
    out_hi = np.stack([np.trunc(c * four).astype(np.int32) for c in (one, hvx, hx, hvy)], axis=1)

    bits = a.view(np.uint32).copy()
    bits[:, 0] ^= np.uint32(0x80000000)
    bits[:, 2] ^= np.uint32(0x80000000)

    np.save(os.path.join(outdir, "a.npy"), a.reshape(-1))
    np.save(os.path.join(outdir, "s.npy"), s)
    np.save(os.path.join(outdir, "expected_2.npy"), out_f.astype("<f4").reshape(-1))
    np.save(os.path.join(outdir, "expected_3.npy"), out_i.astype("<i4").reshape(-1))
    np.save(os.path.join(outdir, "expected_4.npy"), out_h.astype("<f2").reshape(-1))
    np.save(os.path.join(outdir, "expected_5.npy"), out_mix.astype("<f4").reshape(-1))
    np.save(os.path.join(outdir, "expected_6.npy"), out_hi.astype("<i4").reshape(-1))
    np.save(os.path.join(outdir, "expected_7.npy"), bits.astype("<u4").reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
