#include <metal_stdlib>
using namespace metal;

// The MLX body-only kernel `exp1d` as mx.fast.metal_kernel would expand it:
// inputs a (device array) and shape (a 1-element array, hence `constant`),
// output out, and the thread_position_in_grid attribute under its own name.
[[kernel]] void exp1d(
    const device float* a [[buffer(0)]],
    const constant uint32_t* shape [[buffer(1)]],
    device float* out [[buffer(2)]],
    uint3 thread_position_in_grid [[thread_position_in_grid]])
{
    uint tid = thread_position_in_grid.x;
    uint n = (uint)shape[0];
    if (tid >= n) return;
    out[tid] = exp(a[tid]);
}
