#include <metal_stdlib>
using namespace metal;

// Writes the sum of its 64-element block into each element. n is not a multiple of 64: the
// threads past n fill their slot of the last block's tile with zero.
kernel void block_sum(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = gid < n ? x[gid] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float s = 0.0f;
    for (uint i = 0; i < 64; ++i)
        s += tile[i];
    if (gid < n)
        y[gid] = s;
}
