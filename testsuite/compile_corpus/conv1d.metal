// Depthwise 1-D convolution with a threadgroup-staged input window and a compile-time kernel width.
#include <metal_stdlib>
using namespace metal;

template <int K>
[[kernel]] void conv1d_depthwise(device const float* x [[buffer(0)]],
                                 device const float* w [[buffer(1)]],
                                 device float* y [[buffer(2)]],
                                 constant uint& len [[buffer(3)]],
                                 uint2 gid [[thread_position_in_grid]],
                                 uint lid [[thread_index_in_threadgroup]],
                                 uint2 tpt [[threads_per_threadgroup]]) {
  threadgroup float window[256 + K];
  uint ch = gid.y, t = gid.x;
  window[lid] = t < len ? x[ch * len + t] : 0.0f;
  if (lid < K - 1) window[tpt.x + lid] = t + tpt.x < len ? x[ch * len + t + tpt.x] : 0.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < K; ++k) acc = fma(window[lid + k], w[ch * K + k], acc);
  if (t < len) y[ch * len + t] = acc;
}
template [[host_name("conv1d_k3")]] [[kernel]] decltype(conv1d_depthwise<3>) conv1d_depthwise<3>;
template [[host_name("conv1d_k7")]] [[kernel]] decltype(conv1d_depthwise<7>) conv1d_depthwise<7>;
