#include <metal_stdlib>
using namespace metal;

// Per SIMD-group, one lane (a different one in each SIMD-group) writes a float4 report to the
// SIMD-group's slot; every lane whose element is above 0.5 writes the same flag of its
// threadgroup. Stores to one address from part of a SIMD-group: the vector-lane path writes the
// value of the lane that writes, once (the threads one by one leave the same).
kernel void one_lane_reports(
    device const float* x      [[buffer(0)]],
    device float4*      report [[buffer(1)]],
    device uint*        flags  [[buffer(2)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint nsg  [[simdgroups_per_threadgroup]])
{
    const float s = simd_sum(x[gid]);
    const uint slot = tg * nsg + sg;
    const uint who = (slot * 7 + 3) % 32;
    if (lane == who) report[slot] = float4(s, float(gid), float(lane), x[gid]);
    if (x[gid] > 0.5f) flags[tg] = 1u;
}
