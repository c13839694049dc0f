#include <metal_stdlib>
using namespace metal;

// C = A * B for square N x N matrices (N a multiple of 32) with simdgroup_matrix products, the
// shape of MLX's steel GEMM and ggml's mul_mm: a threadgroup of 128 threads stages a 32x16 slice
// of A and a 16x32 slice of B in threadgroup memory; each of its four SIMD-groups accumulates one
// 16x16 block of C in 2x2 8x8 float matrices.
kernel void gemm_simdgroup(
    device const float* A [[buffer(0)]],
    device const float* B [[buffer(1)]],
    device float*       C [[buffer(2)]],
    constant uint&      N [[buffer(3)]],
    uint2 group [[threadgroup_position_in_grid]],
    uint  tid   [[thread_index_in_threadgroup]],
    uint  simd  [[simdgroup_index_in_threadgroup]])
{
    threadgroup float As[32 * 16];
    threadgroup float Bs[16 * 32];
    const uint row0 = group.y * 32, col0 = group.x * 32;
    const uint sr = (simd / 2) * 16, sc = (simd % 2) * 16;
    simdgroup_float8x8 acc[2][2];
    for (uint i = 0; i < 2; ++i)
        for (uint j = 0; j < 2; ++j) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
    for (uint t = 0; t < N; t += 16) {
        for (uint i = tid; i < 32 * 16; i += 128) {
            As[i] = A[(row0 + i / 16) * N + t + i % 16];
            Bs[i] = B[(t + i / 32) * N + col0 + i % 32];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < 16; k += 8) {
            simdgroup_float8x8 a[2], b[2];
            for (uint i = 0; i < 2; ++i) simdgroup_load(a[i], As + (sr + 8 * i) * 16 + k, 16);
            for (uint j = 0; j < 2; ++j) simdgroup_load(b[j], Bs + k * 32 + sc + 8 * j, 32);
            for (uint i = 0; i < 2; ++i)
                for (uint j = 0; j < 2; ++j) simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (uint i = 0; i < 2; ++i)
        for (uint j = 0; j < 2; ++j) simdgroup_store(acc[i][j], C + (row0 + sr + 8 * i) * N + col0 + sc + 8 * j, N);
}
