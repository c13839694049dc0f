#include <metal_stdlib>
using namespace metal;

// Naive transpose of a rows x cols matrix into an output whose rows (one per input
// column) are padded to a multiple of 16 floats. One thread per input element, 2-D
// threadgroups of 16x16; rows = 40, cols = 48, so the padded pitch is 48.
// BUG: the pitch is rounded down (32 < rows), so output row c overlaps the start of
// row c + 1: input rows 32..39 (threadgroups with gid.y / 16 == 2) and rows 0..7
// (gid.y / 16 == 0) store different values to the same elements.
kernel void transpose_padded(
    device const float* in   [[buffer(0)]],
    device float*       out  [[buffer(1)]],
    constant uint*      dims [[buffer(2)]],   // {rows, cols}
    uint2 gid [[thread_position_in_grid]])
{
    const uint rows = dims[0];
    const uint cols = dims[1];
    if (gid.x >= cols || gid.y >= rows) {
        return;
    }
    const uint pitch = rows & ~15u;
    out[gid.x * pitch + gid.y] = in[gid.y * cols + gid.x];
}
