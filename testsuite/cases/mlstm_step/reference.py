#!/usr/bin/env python3
"""mlstm_step: one stabilised mLSTM step (xLSTM, Beck et al. 2024) in float64 numpy:
m' = max(logsigmoid(f) + m, i); C' = e^(logsig f + m - m') C + e^(i - m') v k^T/sqrt(D);
n' likewise with k/sqrt(D); h = sigmoid(o) * (C' q) / max(|n'.q|, e^-m')."""
import os
import sys
import numpy as np


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(1234)
    BH, D = 3, 48
    f32 = lambda a: np.asarray(a, dtype="<f4")
    q = f32(rng.standard_normal((BH, D)))
    k = f32(rng.standard_normal((BH, D)))
    v = f32(rng.standard_normal((BH, D)))
    i_pre = f32(rng.uniform(-2.0, 2.0, BH))
    f_pre = f32(rng.uniform(-3.0, 3.0, BH))
    o_pre = f32(rng.standard_normal((BH, D)))
    C_prev = f32(rng.standard_normal((BH, D, D)) * 0.5)
    n_prev = f32(rng.standard_normal((BH, D)) * 0.5)
    m_prev = f32(rng.uniform(-1.0, 1.0, BH))

    d = lambda a: a.astype(np.float64)
    log_f = -np.log1p(np.exp(-d(f_pre)))
    m_new = np.maximum(log_f + d(m_prev), d(i_pre))
    i_gate = np.exp(d(i_pre) - m_new)
    f_gate = np.exp(log_f + d(m_prev) - m_new)
    ks = d(k) / np.sqrt(D)
    C_new = f_gate[:, None, None] * d(C_prev) + i_gate[:, None, None] * np.einsum("ha,hb->hab", d(v), ks)
    n_new = f_gate[:, None] * d(n_prev) + i_gate[:, None] * ks
    num = np.einsum("hab,hb->ha", C_new, d(q))
    den = np.maximum(np.abs(np.einsum("hb,hb->h", n_new, d(q))), np.exp(-m_new))
    h = (1.0 / (1.0 + np.exp(-d(o_pre)))) * num / den[:, None]

    for name, arr in [("q", q), ("k", k), ("v", v), ("i_pre", i_pre), ("f_pre", f_pre),
                      ("o_pre", o_pre), ("C_prev", C_prev), ("n_prev", n_prev), ("m_prev", m_prev)]:
        np.save(os.path.join(outdir, name + ".npy"), f32(arr).reshape(-1))
    np.save(os.path.join(outdir, "expected_9.npy"), f32(C_new).reshape(-1))
    np.save(os.path.join(outdir, "expected_10.npy"), f32(n_new).reshape(-1))
    np.save(os.path.join(outdir, "expected_11.npy"), f32(m_new))
    np.save(os.path.join(outdir, "expected_12.npy"), f32(h).reshape(-1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
