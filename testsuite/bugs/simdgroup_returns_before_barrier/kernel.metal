#include <metal_stdlib>
using namespace metal;

// The sum of each threadgroup's 256 elements of x (n = 900, so the last threadgroup has 132):
// simd_sum per SIMD-group, then the first SIMD-group adds the SIMD-groups' partial sums.
// BUG: a SIMD-group with no element (the last threadgroup's last three) returns before the
// barrier the others wait at. The partial sums read are only those of SIMD-groups that stored one.
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
    if (tg * 256 + sg * 32 >= n) return;
    const float s = simd_sum(gid < n ? x[gid] : 0.0f);
    if (lane == 0) partial[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        const uint filled = min(nsg, (n - tg * 256 + 31) / 32);
        const float total = simd_sum(lane < filled ? partial[lane] : 0.0f);
        if (lane == 0) sums[tg] = total;
    }
}
