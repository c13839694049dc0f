#include <metal_stdlib>
using namespace metal;

// Tree reduction with simd_shuffle_down (offsets 16, 8, 4, 2, 1). Only lane 0's
// result is used; it never depends on a lane past the end of the SIMD-group.
// The grid is rounded up to full threadgroups of 128 so every SIMD-group is
// full; threads past n contribute 0 instead of returning early.
kernel void simd_shuffle_down_sum(
    device const int* in      [[buffer(0)]],
    device int*       sg_sums [[buffer(1)]],
    constant uint&    n       [[buffer(2)]],
    uint gid  [[thread_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]])
{
    int v = (gid < n) ? in[gid] : 0;
    for (ushort offset = 16; offset > 0; offset >>= 1) {
        v += simd_shuffle_down(v, offset);
    }
    if (lane == 0) {
        sg_sums[gid / 32] = v;
    }
}
