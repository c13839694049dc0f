#include <metal_stdlib>
using namespace metal;

// The same reduction as reduce.metal with simd_sum instead of a tree: one simd_sum per
// SIMD-group, one barrier, then the first SIMD-group sums the partials. One partial per
// 256-thread threadgroup. bench/kernels/reduce_simd.cl is the OpenCL C version (cl_khr_subgroups).
kernel void reduce_simd(
    device const float* x        [[buffer(0)]],
    device float*       partials [[buffer(1)]],
    constant uint&      n        [[buffer(2)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint nsg  [[simdgroups_per_threadgroup]])
{
    threadgroup float sums[32];
    float s = simd_sum(gid < n ? x[gid] : 0.0f);
    if (lane == 0) sums[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        float total = simd_sum(lane < nsg ? sums[lane] : 0.0f);
        if (lane == 0) partials[tg] = total;
    }
}
