// 8x8 simdgroup_matrix tile GEMM in float: load from threadgroup tiles, multiply-accumulate, store.
#include <metal_simdgroup_matrix>
#include <metal_stdlib>
using namespace metal;

kernel void tile_gemm(device const float* A [[buffer(0)]],
                      device const float* B [[buffer(1)]],
                      device float* C [[buffer(2)]],
                      constant uint3& MNK [[buffer(3)]],
                      uint2 tg [[threadgroup_position_in_grid]],
                      uint lid [[thread_index_in_threadgroup]]) {
  threadgroup float As[8 * 8];
  threadgroup float Bs[8 * 8];
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  simdgroup_float8x8 a, b;
  uint K = MNK.z, N = MNK.y;
  for (uint k0 = 0; k0 < K; k0 += 8) {
    for (uint e = lid; e < 64; e += 32) {
      As[e] = A[(tg.y * 8 + e / 8) * K + k0 + e % 8];
      Bs[e] = B[(k0 + e / 8) * N + tg.x * 8 + e % 8];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_load(a, As, 8);
    simdgroup_load(b, Bs, 8);
    simdgroup_multiply_accumulate(acc, a, b, acc);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  simdgroup_store(acc, C + tg.y * 8 * N + tg.x * 8, N);
}
