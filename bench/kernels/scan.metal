#include <metal_stdlib>
using namespace metal;

// Two-level exclusive scan of each 256-thread threadgroup's elements: simd_prefix_exclusive_sum
// within each SIMD-group, then the SIMD-group totals are scanned (again with
// simd_prefix_exclusive_sum, by the first SIMD-group) and added back. Also writes each
// threadgroup's total, the input of a next level. bench/kernels/scan.cl: OpenCL C (cl_khr_subgroups).
kernel void scan_block(
    device const float* x      [[buffer(0)]],
    device float*       y      [[buffer(1)]],
    device float*       totals [[buffer(2)]],
    constant uint&      n      [[buffer(3)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint width [[threads_per_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint nsg  [[simdgroups_per_threadgroup]])
{
    threadgroup float offsets[32];
    const float v = gid < n ? x[gid] : 0.0f;
    const float prefix = simd_prefix_exclusive_sum(v);
    if (lane == width - 1) offsets[sg] = prefix + v;   // the SIMD-group's total
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
        const float total = lane < nsg ? offsets[lane] : 0.0f;
        const float offset = simd_prefix_exclusive_sum(total);
        if (lane < nsg) offsets[lane] = offset;
        if (lane == nsg - 1) totals[tg] = offset + total;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (gid < n) y[gid] = prefix + offsets[sg];
}
