#include <metal_stdlib>
using namespace metal;

// The tiled GEMM as tutorials write it: C = A * B for square N x N matrices, N a multiple of 16,
// no bounds guards, 32-bit unsigned indices with N from `constant uint&` (bench/kernels/gemm.metal
// is the guarded version with the shape in a buffer). The checked build's loads of N and the
// bounds checks of the tile loads sit inside the loop around the barriers.
kernel void gemm_plain(
    device const float* A [[buffer(0)]],
    device const float* B [[buffer(1)]],
    device float*       C [[buffer(2)]],
    constant uint&      N [[buffer(3)]],
    uint2 gid [[thread_position_in_grid]],
    uint2 tid [[thread_position_in_threadgroup]])
{
    threadgroup float As[16][16];
    threadgroup float Bs[16][16];
    const uint row = gid.y, col = gid.x, tx = tid.x, ty = tid.y;
    float sum = 0.0f;
    for (uint t = 0; t < N; t += 16) {
        As[ty][tx] = A[row * N + (t + tx)];
        Bs[ty][tx] = B[(t + ty) * N + col];
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < 16; ++k) {
            sum += As[ty][k] * Bs[k][tx];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    C[row * N + col] = sum;
}
