#include <metal_stdlib>
using namespace metal;

// The sum of each threadgroup's 256 elements of x (n = 900, so the last threadgroup has 132):
// simd_sum per SIMD-group, then the first SIMD-group adds the SIMD-groups' partial sums.
// SIMD-groups with no element take part with a zero and reach the barrier.
kernel void block_sums(
    device const float* x     [[buffer(0)]],
    device float*       sums  [[buffer(1)]],
    constant uint&      n     [[buffer(2)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint nsg  [[simdgroups_per_threadgroup]])
{
    threadgroup float partial[32];
    const float s = simd_sum(gid < n ? x[gid] : 0.0f);
    if (lane == 0) partial[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        const float total = simd_sum(lane < nsg ? partial[lane] : 0.0f);
        if (lane == 0) sums[tg] = total;
    }
}
