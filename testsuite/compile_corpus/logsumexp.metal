// Row logsumexp with a running max (MLX's logsumexp shape), precise::log at the end.
#include <metal_stdlib>
using namespace metal;

kernel void logsumexp(device const float* x [[buffer(0)]],
                      device float* out [[buffer(1)]],
                      constant int& axis_size [[buffer(2)]],
                      uint gid [[threadgroup_position_in_grid]],
                      uint lid [[thread_position_in_threadgroup]],
                      uint lsize [[threads_per_threadgroup]],
                      uint simd_lane_id [[thread_index_in_simdgroup]],
                      uint simd_group_id [[simdgroup_index_in_threadgroup]]) {
  threadgroup float local_max[32];
  threadgroup float local_normalizer[32];
  x += size_t(gid) * size_t(axis_size);
  float maxval = -numeric_limits<float>::infinity(), normalizer = 0.0f;
  for (int i = lid; i < axis_size; i += lsize) {
    float v = x[i];
    float prev = maxval;
    maxval = max(maxval, v);
    normalizer = normalizer * fast::exp(prev - maxval) + fast::exp(v - maxval);
  }
  float simd_m = simd_max(maxval);
  normalizer = simd_sum(normalizer * fast::exp(maxval - simd_m));
  if (simd_lane_id == 0) {
    local_max[simd_group_id] = simd_m;
    local_normalizer[simd_group_id] = normalizer;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (simd_group_id == 0) {
    uint n = (lsize + 31) / 32;
    float m = simd_lane_id < n ? local_max[simd_lane_id] : -INFINITY;
    float gm = simd_max(m);
    float s = simd_lane_id < n ? local_normalizer[simd_lane_id] * fast::exp(m - gm) : 0.0f;
    s = simd_sum(s);
    if (simd_lane_id == 0) out[gid] = isinf(gm) ? gm : gm + precise::log(s);
  }
}
