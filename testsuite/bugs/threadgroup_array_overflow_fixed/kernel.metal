#include <metal_stdlib>
using namespace metal;

// Forward differences d[i] = x[i + 1] - x[i] (0 for the last element) of n = 1024
// floats through threadgroup memory, threadgroups of 256 (ushort thread index).
// The tile has one extra slot, loaded by the last thread with the next block's first
// element.
kernel void forward_difference_tg(
    device const float* x [[buffer(0)]],
    device float*       d [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint   gid [[thread_position_in_grid]],
    ushort lid [[thread_index_in_threadgroup]],
    ushort tpg [[threads_per_threadgroup]])
{
    threadgroup float tile[257];
    tile[lid] = x[gid];
    if (lid == tpg - 1) {
        tile[lid + 1] = (gid + 1 < n) ? x[gid + 1] : x[gid];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    d[gid] = tile[lid + 1] - tile[lid];
}
