// Ternary where(cond, a, b) with bool buffers, and vectorized select over bool4 masks.
#include <metal_stdlib>
using namespace metal;

kernel void where_scalar(device const bool* cond [[buffer(0)]], device const float* a [[buffer(1)]],
                         device const float* b [[buffer(2)]], device float* out [[buffer(3)]],
                         uint i [[thread_position_in_grid]]) {
  out[i] = cond[i] ? a[i] : b[i];
}

kernel void where_vec4(device const bool4* cond [[buffer(0)]], device const half4* a [[buffer(1)]],
                       device const half4* b [[buffer(2)]], device half4* out [[buffer(3)]],
                       uint i [[thread_position_in_grid]]) {
  bool4 c = cond[i];
  bool4 flip = !c;
  bool4 both = c && (a[i] > b[i]);
  bool4 either = c || flip;
  out[i] = select(b[i], a[i], c) + select(half4(0), half4(1), both) + half4(any(either) ? 0.0h : 1.0h);
}
