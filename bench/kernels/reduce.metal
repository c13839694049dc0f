#include <metal_stdlib>
using namespace metal;

#define GROUP 256

// Tree reduction in threadgroup memory with a barrier per level: one partial sum per
// 256-thread threadgroup. bench/kernels/reduce.cl is the same kernel in OpenCL C.
kernel void reduce_tree(
    device const float* x        [[buffer(0)]],
    device float*       partials [[buffer(1)]],
    constant uint&      n        [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    threadgroup float s[GROUP];
    s[lid] = gid < n ? x[gid] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = GROUP / 2; stride > 0; stride >>= 1) {
        if (lid < stride) s[lid] += s[lid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (lid == 0) partials[tg] = s[0];
}
