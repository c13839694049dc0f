#include <metal_stdlib>
using namespace metal;

// Divides each element by the largest of its threadgroup's first 32: the first SIMD-group finds it
// with simd_max and publishes it through threadgroup memory (threadgroups of 128). Every
// SIMD-group waits at the one barrier after the branch.
kernel void scale_by_head_max(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    uint gid  [[thread_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]])
{
    threadgroup float head_max;
    const float v = x[gid];
    if (sg == 0) {
        const float m = simd_max(v);
        if (lane == 0) head_max = m;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    y[gid] = v / head_max;
}
