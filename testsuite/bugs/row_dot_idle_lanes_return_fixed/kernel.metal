#include <metal_stdlib>
using namespace metal;

// y = A x for a 13 x 3 matrix, four lanes per row (the shape of MLX's gemv for a small K): lane
// j of a row's quad multiplies column j, the quad sums with simd_shuffle_down and its first lane
// stores. The grid has 16 quads; the last three rows do not exist and their quads return.
// Lanes 17-19 of the last SIMD-group then shuffle from returned lanes 20 and 21: undefined values,
// but dead (no lane that stores takes anything from them), so this is correct.
kernel void row_dot(
    device const float* A   [[buffer(0)]],
    device const float* x   [[buffer(1)]],
    device float*       y   [[buffer(2)]],
    constant uint&      M   [[buffer(3)]],
    constant uint&      K   [[buffer(4)]],
    uint gid [[thread_position_in_grid]])
{
    const uint row = gid / 4, col = gid % 4;
    if (row >= M)
        return;
    float v = col < K ? A[row * K + col] * x[col] : 0.0f;  // idle lanes add nothing
    v += simd_shuffle_down(v, 2);
    v += simd_shuffle_down(v, 1);
    if (col == 0)
        y[row] = v;
}
