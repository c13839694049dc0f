// bfloat arithmetic and math: bf literals, explicit conversions, vectors of bfloat.
#include <metal_stdlib>
using namespace metal;

kernel void bf16_gelu(device const bfloat* x [[buffer(0)]],
                      device bfloat* y [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  bfloat v = x[i];
  bfloat half_v = v * 0.5bf;
  float inner = 0.7978845608f * (float(v) + 0.044715f * float(v) * float(v) * float(v));
  y[i] = half_v * bfloat(1.0f + tanh(inner));
  y[i] += bfloat(exp(v)) - bfloat(abs(v)) + 1.0BF;
}

kernel void bf16_vec(device const bfloat4* x [[buffer(0)]],
                     device bfloat4* y [[buffer(1)]],
                     device float4* f [[buffer(2)]],
                     uint i [[thread_position_in_grid]]) {
  bfloat4 v = x[i];
  float4 w = float4(v);
  f[i] = w * 2.0f;
  y[i] = bfloat4(w + 1.0f);
  bfloat2 p = bfloat2(v.xy);
  y[i].x = p.x + p.y;
  bfloat dummy = bfloat(0.0f);
  y[i].w = max(v.w, dummy);
}
