#include <metal_stdlib>
using namespace metal;

// The n - 3 windows of 4 consecutive floats of n = 1000, unfolded into rows (as im2col does):
// rows[i] = (x[i], x[i + 1], x[i + 2], x[i + 3]), each window read as one float4 at a float offset
// (as ggml reads rows with vector loads; Apple GPUs execute them at any float offset).
kernel void unfold_windows(
    device const float* x [[buffer(0)]],
    device float4*      rows [[buffer(1)]],
    constant uint&      windows [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid < windows) {
        rows[gid] = *(device const float4*)(x + gid);
    }
}
