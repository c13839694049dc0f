#include <metal_stdlib>
using namespace metal;

#define TILE 64

// 3-point blur with replicated borders of n = 1024 floats, tiled: each threadgroup of 64
// stages its elements plus one halo element on each side in threadgroup memory.
// BUG: only the left halo is loaded; thread TILE - 1 reads tile[TILE + 1], which no
// thread wrote.
kernel void blur3_tiled(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup float tile[TILE + 2];
    tile[lid + 1] = x[gid];
    if (lid == 0) {
        tile[0] = (gid > 0) ? x[gid - 1] : x[gid];
    }

    threadgroup_barrier(mem_flags::mem_threadgroup);
    y[gid] = 0.25f * tile[lid] + 0.5f * tile[lid + 1] + 0.25f * tile[lid + 2];
}
