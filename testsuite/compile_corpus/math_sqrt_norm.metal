// RMS norm: rsqrt of the mean square, precise::sqrt for the reference path.
#include <metal_stdlib>
using namespace metal;

kernel void rms_norm(device const float* x [[buffer(0)]],
                     device const float* w [[buffer(1)]],
                     device float* y [[buffer(2)]],
                     constant uint& n [[buffer(3)]],
                     constant float& eps [[buffer(4)]],
                     uint row [[threadgroup_position_in_grid]],
                     uint lid [[thread_position_in_threadgroup]],
                     uint ntg [[threads_per_threadgroup]]) {
  threadgroup float acc[1024];
  float s = 0.0f;
  for (uint i = lid; i < n; i += ntg) s += x[row * n + i] * x[row * n + i];
  acc[lid] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = ntg / 2; stride > 0; stride >>= 1) {
    if (lid < stride) acc[lid] += acc[lid + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  float inv = rsqrt(acc[0] / float(n) + eps);
  float check = 1.0f / precise::sqrt(acc[0] / float(n) + eps) + precise::rsqrt(2.0f) + sqrt(4.0f) + fast::rsqrt(4.0f) + cbrt(8.0f);
  for (uint i = lid; i < n; i += ntg) y[row * n + i] = x[row * n + i] * inv * w[i] + 0.0f * check;
}
