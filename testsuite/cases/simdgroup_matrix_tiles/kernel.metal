#include <metal_stdlib>
using namespace metal;

// C = A * B + C for A (M x 32, half), B (32 x 16, half), C (M x 16, float), as MLX's and ggml's
// GEMMs do it: each threadgroup of 64 threads stages an 8-row slice of A and all of B in
// threadgroup memory, then each of its two SIMD-groups makes one 8x8 block of C with four
// simdgroup_matrix products of half operands into a float accumulator.
kernel void tile_products(
    device const half* a  [[buffer(0)]],
    device const half* b  [[buffer(1)]],
    device float*      c  [[buffer(2)]],
    uint   tid   [[thread_index_in_threadgroup]],
    uint   simd  [[simdgroup_index_in_threadgroup]],
    uint   group [[threadgroup_position_in_grid]])
{
    threadgroup half ta[8 * 32];
    threadgroup half tb[32 * 16];
    for (uint i = tid; i < 8 * 32; i += 64) ta[i] = a[group * 8 * 32 + i];
    for (uint i = tid; i < 32 * 16; i += 64) tb[i] = b[i];
    threadgroup_barrier(mem_flags::mem_threadgroup);

    device float* block = c + group * 8 * 16 + simd * 8;
    simdgroup_float8x8 acc;
    simdgroup_load(acc, block, 16);
    for (uint k = 0; k < 32; k += 8) {
        simdgroup_half8x8 ma, mb;
        simdgroup_load(ma, ta + k, 32);
        simdgroup_load(mb, tb + k * 16 + simd * 8, 16);
        simdgroup_multiply_accumulate(acc, ma, mb, acc);
    }
    simdgroup_store(acc, block, 16);
}
