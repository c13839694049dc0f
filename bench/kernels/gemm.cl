#define TILE 16

// C[M][N] = A[M][K] * B[K][N], row-major, 16x16 output tile per work-group:
// examples/tiled_gemm_16x16/kernel.metal in OpenCL C. Both operand tiles are staged in
// local memory; out-of-range loads are padded with zeros so every work-item reaches every barrier.
__kernel void gemm_tiled_16x16(__global const float* A, __global const float* B, __global float* C,
                               __constant uint* shape)   // {M, N, K}
{
    const uint M = shape[0];
    const uint N = shape[1];
    const uint K = shape[2];

    __local float Asub[TILE][TILE];
    __local float Bsub[TILE][TILE];

    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint row = get_group_id(1) * TILE + ly;
    const uint col = get_group_id(0) * TILE + lx;

    float acc = 0.0f;
    const uint ntiles = (K + TILE - 1) / TILE;
    for (uint t = 0; t < ntiles; ++t) {
        const uint a_col = t * TILE + lx;
        const uint b_row = t * TILE + ly;
        Asub[ly][lx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bsub[ly][lx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);

        #pragma unroll
        for (uint p = 0; p < TILE; ++p) {
            acc = fma(Asub[ly][p], Bsub[p][lx], acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
