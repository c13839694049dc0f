#include <metal_stdlib>
using namespace metal;

// Reverses each block of 256 floats through threadgroup memory: thread i stores its
// element, and after a barrier reads the element of thread 255 - i (always in another
// SIMD-group).
// The barrier orders threadgroup memory.
kernel void block_reverse(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float tile[256];
    tile[lid] = x[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    y[gid] = tile[tpg - 1 - lid];
}
