#include <metal_stdlib>
using namespace metal;

// Transposes |x| within each 8x8 tile through threadgroup memory (2-D threadgroups of
// 8x8 on a 16x16 grid).
// BUG: each branch of a data-dependent if has its own barrier, so threads with negative
// and non-negative values wait at different barriers.
kernel void abs_tile_transpose(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    uint2 gid   [[thread_position_in_grid]],
    uint2 lid   [[thread_position_in_threadgroup]],
    uint2 gsize [[threads_per_grid]])
{
    threadgroup float tile[8][8];
    const uint idx = gid.y * gsize.x + gid.x;
    const float v = x[idx];
    if (v >= 0.0f) {
        tile[lid.y][lid.x] = v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    } else {
        tile[lid.y][lid.x] = -v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    y[idx] = tile[lid.x][lid.y];
}
