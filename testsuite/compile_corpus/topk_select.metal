// Top-k threshold by a per-SIMD-group ballot count: how many lanes exceed a candidate value.
#include <metal_stdlib>
using namespace metal;

kernel void count_above(device const float* x [[buffer(0)]],
                        device const float* thresholds [[buffer(1)]],
                        device uint* counts [[buffer(2)]],
                        uint gid [[thread_position_in_grid]],
                        uint lane [[thread_index_in_simdgroup]],
                        uint sg_global [[threadgroup_position_in_grid]]) {
  float v = x[gid];
  uint total = 0;
  for (int t = 0; t < 4; ++t) {
    simd_vote vote = simd_ballot(v > thresholds[t]);
    total += popcount(uint(static_cast<simd_vote::vote_t>(vote) & 0xffffffffu));
  }
  if (lane == 0) counts[sg_global] = total;
}
