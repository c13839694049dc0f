#include <metal_stdlib>
using namespace metal;

// Divides each block of 64 elements by the block's maximum: every thread scans the whole tile
// for the maximum, then the first thread of the second SIMD-group stores it in tile[0] for everyone to divide by. A
// barrier separates the scan from the store, so no thread is still reading tile[0].
kernel void divide_by_block_max(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup float tile[64];
    tile[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float m = tile[0];
    for (uint i = 1; i < 64; ++i)
        m = max(m, tile[i]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 32)
        tile[0] = m;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    y[gid] = x[gid] / tile[0];
}
