#include <metal_stdlib>
using namespace metal;

// totals[g] = the sum over the 64 values of threadgroup g of (x[i] - the group's first value):
// each of the two SIMD-groups sums its 32 differences with simd_sum; the first passes its sum to
// the second through tile[0].
// BUG: with no barrier between the reads of tile[0] and the first SIMD-group's write of it, the
// second SIMD-group may still be reading it (each SIMD-group runs on its own).
kernel void sums_from_first(
    device const float* x      [[buffer(0)]],
    device float*       totals [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    threadgroup float tile[64];
    tile[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const float s = simd_sum(tile[lid] - tile[0]);
    if (lid == 0) tile[0] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 32) totals[tg] = tile[0] + s;
}
