#include <metal_stdlib>
using namespace metal;

// Forward differences d[i] = x[i + 1] - x[i] (0 for the last element) of n = 1024
// floats through threadgroup memory, threadgroups of 256 (ushort thread index).
// BUG: thread 255 reads tile[256], one past the end of the 256-element tile (the next
// block's first element was never staged).
kernel void forward_difference_tg(
    device const float* x [[buffer(0)]],
    device float*       d [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint   gid [[thread_position_in_grid]],
    ushort lid [[thread_index_in_threadgroup]],
    ushort tpg [[threads_per_threadgroup]])
{
    threadgroup float tile[256];
    tile[lid] = x[gid];

    threadgroup_barrier(mem_flags::mem_threadgroup);
    d[gid] = tile[lid + 1] - tile[lid];
}
