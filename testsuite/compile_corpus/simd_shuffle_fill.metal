// Sliding windows with simd_shuffle_and_fill_up/down (with and without modulo), as scans do.
#include <metal_stdlib>
using namespace metal;

kernel void window_sum(device const float* x [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint sg_base [[threadgroup_position_in_grid]]) {
  float cur = x[gid];
  float next = x[gid + 32];
  float prev = gid >= 32 ? x[gid - 32] : 0.0f;
  float a = simd_shuffle_and_fill_down(cur, next, 1);
  float b = simd_shuffle_and_fill_up(cur, prev, 1);
  float c = simd_shuffle_and_fill_down(cur, next, 2, 8);
  float d = simd_shuffle_and_fill_up(cur, prev, 2, 16);
  out[gid] = a + b + c + d + float(sg_base);
}

kernel void carry_scan(device const uint* x [[buffer(0)]], device uint* out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]]) {
  uint v = x[gid];
  uint carry = simd_shuffle_and_fill_up(v, 0u, 1);
  out[gid] = simd_prefix_inclusive_sum(v) + carry;
}
