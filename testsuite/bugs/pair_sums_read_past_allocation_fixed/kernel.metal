#include <metal_stdlib>
using namespace metal;

// y[r] = the sum of row r of an n x 4 float tensor, plus bias[r] when there is a bias. Each thread
// reads two rows, so with n odd the last thread reads one row past the tensor and discards its
// sum, as ggml's mul_mv kernels read past a tensor into the rest of its buffer. Without a bias the
// host binds the tensor there too, and the kernel compares the pointers (ggml's soft_max does so
// with its mask).
// Here the tensor is followed by another one in the same buffer: the read past it stays inside
// the allocation, which Metal allows (and the sum it feeds is discarded).
kernel void pair_sums(
    device const float* src  [[buffer(0)]],
    device const float* bias [[buffer(1)]],
    device float*       y    [[buffer(2)]],
    constant uint&      n    [[buffer(3)]],
    uint t [[thread_position_in_grid]])
{
    const bool has_bias = bias != src;
    const float4 a = ((device const float4*)src)[2 * t];
    const float4 b = ((device const float4*)src)[2 * t + 1];
    if (2 * t < n)     y[2 * t]     = a.x + a.y + a.z + a.w + (has_bias ? bias[2 * t] : 0.0f);
    if (2 * t + 1 < n) y[2 * t + 1] = b.x + b.y + b.z + b.w + (has_bias ? bias[2 * t + 1] : 0.0f);
}
