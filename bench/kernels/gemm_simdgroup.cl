// bench/kernels/gemm_simdgroup.metal in OpenCL C, which has no matrix products across a
// sub-group: the same tiles in local memory and the same launch (128 work-items per 32x32 block
// of C), each work-item accumulating 8 elements of one row.
__kernel void gemm_simdgroup(__global const float* A, __global const float* B, __global float* C, uint N)
{
    __local float As[32 * 16];
    __local float Bs[16 * 32];
    const uint tid = get_local_id(0);
    const uint row0 = get_group_id(1) * 32, col0 = get_group_id(0) * 32;
    const uint r = tid / 4, c = (tid % 4) * 8;
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (uint t = 0; t < N; t += 16) {
        for (uint i = tid; i < 32 * 16; i += 128) {
            As[i] = A[(row0 + i / 16) * N + t + i % 16];
            Bs[i] = B[(t + i / 32) * N + col0 + i % 32];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < 16; ++k)
            for (uint j = 0; j < 8; ++j) acc[j] += As[r * 16 + k] * Bs[k * 32 + c + j];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint j = 0; j < 8; ++j) C[(row0 + r) * N + col0 + c + j] = acc[j];
}
