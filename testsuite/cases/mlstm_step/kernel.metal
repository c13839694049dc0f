#include <metal_stdlib>
using namespace metal;

// One recurrent step of the stabilised mLSTM cell (xLSTM), one threadgroup per
// (batch, head) and one thread per head dimension a in [0, D):
//   log_f  = log_sigmoid(f_pre)
//   m_new  = max(log_f + m_prev, i_pre)
//   i_gate = exp(i_pre - m_new),  f_gate = exp(log_f + m_prev - m_new)
//   ks     = k / sqrt(D)
//   C_new[a][b] = f_gate * C[a][b] + i_gate * v[a] * ks[b]
//   n_new[a]    = f_gate * n[a]    + i_gate * ks[a]
//   h[a] = sigmoid(o_pre[a]) * (sum_b C_new[a][b] q[b]) / max(|n_new . q|, exp(-m_new))
// n_new . q is reduced with simd_sum + threadgroup partials. D = 48: two
// SIMD-groups, the second with 16 active lanes.
kernel void mlstm_step(
    device const float* q      [[buffer(0)]],    // [BH][D]
    device const float* k      [[buffer(1)]],    // [BH][D]
    device const float* v      [[buffer(2)]],    // [BH][D]
    device const float* i_pre  [[buffer(3)]],    // [BH]
    device const float* f_pre  [[buffer(4)]],    // [BH]
    device const float* o_pre  [[buffer(5)]],    // [BH][D]
    device const float* C_prev [[buffer(6)]],    // [BH][D][D]
    device const float* n_prev [[buffer(7)]],    // [BH][D]
    device const float* m_prev [[buffer(8)]],    // [BH]
    device float*       C_out  [[buffer(9)]],
    device float*       n_out  [[buffer(10)]],
    device float*       m_out  [[buffer(11)]],
    device float*       h_out  [[buffer(12)]],
    constant uint&      D      [[buffer(13)]],
    uint3 tid3      [[thread_position_in_threadgroup]],
    uint3 tg3       [[threadgroup_position_in_grid]],
    uint  simd_lane [[thread_index_in_simdgroup]],
    uint  simd_id   [[simdgroup_index_in_threadgroup]])
{
    threadgroup float partials[32];
    threadgroup float denom_shared;

    const uint a = tid3.x;
    const uint bh = tg3.y;

    // Gates (every thread recomputes the per-head scalars).
    const float fp = f_pre[bh];
    const float log_f = -log(1.0f + exp(-fp));
    const float mp = m_prev[bh];
    const float ip = i_pre[bh];
    const float m_new = max(log_f + mp, ip);
    const float i_gate = exp(ip - m_new);
    const float f_gate = exp(log_f + mp - m_new);
    const float scale = rsqrt(float(D));

    device const float* qh = q + bh * D;
    device const float* kh = k + bh * D;
    const float va = v[bh * D + a];

    // Row a of the matrix memory and its read-out with q.
    device const float* Crow = C_prev + (bh * D + a) * D;
    device float* Cnew = C_out + (bh * D + a) * D;
    float num = 0.0f;
    for (uint b = 0; b < D; ++b) {
        const float c = f_gate * Crow[b] + i_gate * va * (kh[b] * scale);
        Cnew[b] = c;
        num = fma(c, qh[b], num);
    }

    // Normaliser element a and the dot product n_new . q.
    const float n_a = f_gate * n_prev[bh * D + a] + i_gate * (kh[a] * scale);
    n_out[bh * D + a] = n_a;
    const float part = simd_sum(n_a * qh[a]);
    if (simd_lane == 0) {
        partials[simd_id] = part;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (a == 0) {
        const uint nsimd = (D + 31) / 32;
        float nq = 0.0f;
        for (uint s = 0; s < nsimd; ++s) {
            nq += partials[s];
        }
        denom_shared = max(fabs(nq), exp(-m_new));
        m_out[bh] = m_new;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    const float o_gate = 1.0f / (1.0f + exp(-o_pre[bh * D + a]));
    h_out[bh * D + a] = o_gate * num / denom_shared;
}
