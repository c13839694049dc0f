// Attention scores for one query row: q·k with half inputs, scale, online softmax state kept
// per SIMD-group (simd_max/simd_sum), fast::exp2 with log2(e) folded into the scale.
#include <metal_stdlib>
using namespace metal;

kernel void attention_row(device const half4* q [[buffer(0)]],
                          device const half4* k [[buffer(1)]],
                          device const half4* v [[buffer(2)]],
                          device float4* o [[buffer(3)]],
                          constant uint& seq [[buffer(4)]],
                          constant uint& d4 [[buffer(5)]],
                          constant float& scale [[buffer(6)]],
                          uint lane [[thread_index_in_simdgroup]]) {
  float m = -INFINITY, l = 0.0f;
  float4 acc = 0.0f;
  const float s2 = scale * M_LOG2E_F;
  for (uint j = lane; j < seq; j += 32) {
    float s = 0.0f;
    for (uint c = 0; c < d4; ++c) s += dot(float4(q[c]), float4(k[j * d4 + c]));
    s *= s2;
    float m_new = max(m, s);
    float corr = fast::exp2(m - m_new);
    float p = fast::exp2(s - m_new);
    l = l * corr + p;
    acc = acc * corr + p * float4(v[j * d4]);
    m = m_new;
  }
  float gm = simd_max(m);
  float f = fast::exp2(m - gm);
  float gl = simd_sum(l * f);
  float4 ga = simd_sum(acc * f);
  if (lane == 0) o[0] = ga / gl;
}
