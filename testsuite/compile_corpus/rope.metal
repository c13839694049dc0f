// Rotary position embedding: sincos of position * inverse frequency, half2 pairs rotated in float.
#include <metal_stdlib>
using namespace metal;

kernel void rope(device const half2* x [[buffer(0)]],
                 device half2* y [[buffer(1)]],
                 constant float& base [[buffer(2)]],
                 constant uint& half_dim [[buffer(3)]],
                 uint2 pos [[thread_position_in_grid]]) {
  uint pair = pos.x, token = pos.y;
  float inv_freq = exp2(-log2(base) * float(pair) / float(half_dim));
  float theta = float(token) * inv_freq;
  float c;
  float s = sincos(theta, c);
  float2 v = float2(x[token * half_dim + pair]);
  y[token * half_dim + pair] = half2(v.x * c - v.y * s, v.x * s + v.y * c);
}
