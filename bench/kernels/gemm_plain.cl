// bench/kernels/gemm_plain.metal in OpenCL C: the unguarded tutorial tiled GEMM, N a multiple of 16.
__kernel void gemm_plain(__global const float* A, __global const float* B, __global float* C, uint N)
{
    __local float As[16][16];
    __local float Bs[16][16];
    const uint row = get_global_id(1), col = get_global_id(0);
    const uint tx = get_local_id(0), ty = get_local_id(1);
    float sum = 0.0f;
    for (uint t = 0; t < N; t += 16) {
        As[ty][tx] = A[row * N + (t + tx)];
        Bs[ty][tx] = B[(t + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < 16; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}
