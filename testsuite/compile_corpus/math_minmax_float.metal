// NaN-aware float min/max/median and fma accumulation (reductions with MLX-like identities).
#include <metal_stdlib>
using namespace metal;

kernel void fminmax(device const float4* a [[buffer(0)]],
                    device const float4* b [[buffer(1)]],
                    device float4* out [[buffer(2)]],
                    uint i [[thread_position_in_grid]]) {
  float4 x = a[i], y = b[i];
  float4 lo = fmin(x, y), hi = fmax(x, y);
  float4 m3 = fmin3(x, y, lo) + fmax3(x, y, hi) + fmedian3(x, y, hi);
  float4 f = fma(x, y, lo) + max(x, y) - min(x, y);
  out[i] = m3 + f + max3(x, y, hi) + min3(x, y, lo) + median3(x, y, lo);
}

kernel void fminmax_fast(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],
                         uint i [[thread_position_in_grid]]) {
  float v = a[i];
  out[i] = fast::fmax(v, 0.0f) + fast::fmin(v, 1.0f) + precise::fmax3(v, 1.0f, 2.0f) +
           fast::clamp(v, -1.0f, 1.0f) + precise::fma(v, v, 1.0f);
}
