#include <metal_stdlib>
using namespace metal;

// y = A x for a 13 x 3 matrix, four lanes per row (the shape of MLX's gemv for a small K): lane
// j of a row's quad multiplies column j, the quad sums with simd_shuffle_down and its first lane
// stores.
// BUG: lane 3 of every quad has no column and returns before the reduction, so lane 1 adds the
// value of an inactive lane (undefined in MSL) and lane 0 stores it. It happens to work where an
// inactive lane reads as zero.
kernel void row_dot(
    device const float* A   [[buffer(0)]],
    device const float* x   [[buffer(1)]],
    device float*       y   [[buffer(2)]],
    constant uint&      M   [[buffer(3)]],
    constant uint&      K   [[buffer(4)]],
    uint gid [[thread_position_in_grid]])
{
    const uint row = gid / 4, col = gid % 4;
    if (row >= M || col >= K)
        return;
    float v = A[row * K + col] * x[col];
    v += simd_shuffle_down(v, 2);
    v += simd_shuffle_down(v, 1);
    if (col == 0)
        y[row] = v;
}
