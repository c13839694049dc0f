// Two-level sum reduction: per-thread accumulation of 4 elements, simd_sum, threadgroup partials,
// then an atomic add per threadgroup.
#include <metal_stdlib>
using namespace metal;

kernel void reduce_sum(device const float* in [[buffer(0)]],
                       device atomic_float* out [[buffer(1)]],
                       constant uint& n [[buffer(2)]],
                       uint gid [[thread_position_in_grid]],
                       uint lid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[32];
  float acc = 0.0f;
  for (uint k = 0; k < 4; ++k) {
    uint i = gid * 4 + k;
    acc += i < n ? in[i] : 0.0f;
  }
  acc = simd_sum(acc);
  if (lane == 0) partial[sg] = acc;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    float t = simd_sum(partial[lane]);
    if (lid == 0) atomic_fetch_add_explicit(out, t, memory_order_relaxed);
  }
}
