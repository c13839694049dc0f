// Block scan: simd prefix sums within SIMD-groups, then a scan of the SIMD-group totals.
#include <metal_stdlib>
using namespace metal;

kernel void block_scan(device const uint* in [[buffer(0)]],
                       device uint* out [[buffer(1)]],
                       uint gid [[thread_position_in_grid]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]],
                       uint nsg [[simdgroups_per_threadgroup]]) {
  threadgroup uint totals[32];
  uint v = in[gid];
  uint incl = simd_prefix_inclusive_sum(v);
  uint excl = simd_prefix_exclusive_sum(v);
  if (lane == 31) totals[sg] = incl;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    uint t = lane < nsg ? totals[lane] : 0;
    totals[lane] = simd_prefix_exclusive_sum(t);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = excl + totals[sg] + (incl - excl - v);
}

kernel void cumprod(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                    uint gid [[thread_position_in_grid]]) {
  float v = in[gid];
  out[gid] = simd_prefix_inclusive_product(v) + simd_prefix_exclusive_product(v);
}
