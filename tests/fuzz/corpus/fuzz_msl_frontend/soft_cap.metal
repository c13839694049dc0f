#include <metal_stdlib>
using namespace metal;

// Soft capping as in the xLSTM Metal backend: y = cap * tanh(x / cap).
// The grid is rounded up to a multiple of the threadgroup size (MLX style),
// so the threads past `size` must leave the output alone.
kernel void soft_cap(
    device const float* input  [[buffer(0)]],
    device float*       output [[buffer(1)]],
    constant float&     cap_value [[buffer(2)]],
    constant uint&      size      [[buffer(3)]],
    uint tid [[thread_position_in_grid]])
{
    if (tid >= size) return;
    float val = input[tid];
    output[tid] = cap_value * tanh(val / cap_value);
}
