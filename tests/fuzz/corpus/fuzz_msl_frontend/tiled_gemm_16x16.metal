#include <metal_stdlib>
using namespace metal;

#define TILE 16

// C[M][N] = A[M][K] * B[K][N], row-major, 16x16 output tile per threadgroup.
// Both operand tiles are staged in threadgroup memory; out-of-range loads are
// padded with zeros so every thread reaches every barrier.
kernel void gemm_tiled_16x16(
    device const float* A     [[buffer(0)]],
    device const float* B     [[buffer(1)]],
    device float*       C     [[buffer(2)]],
    constant uint*      shape [[buffer(3)]],   // {M, N, K}
    uint2 tg  [[threadgroup_position_in_grid]],
    uint2 lid [[thread_position_in_threadgroup]])
{
    const uint M = shape[0];
    const uint N = shape[1];
    const uint K = shape[2];

    threadgroup float Asub[TILE][TILE];
    threadgroup float Bsub[TILE][TILE];

    const uint row = tg.y * TILE + lid.y;
    const uint col = tg.x * TILE + lid.x;

    float acc = 0.0f;
    const uint ntiles = (K + TILE - 1) / TILE;
    for (uint t = 0; t < ntiles; ++t) {
        const uint a_col = t * TILE + lid.x;
        const uint b_row = t * TILE + lid.y;
        Asub[lid.y][lid.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bsub[lid.y][lid.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);

        #pragma unroll
        for (uint p = 0; p < TILE; ++p) {
            acc = fma(Asub[lid.y][p], Bsub[p][lid.x], acc);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
