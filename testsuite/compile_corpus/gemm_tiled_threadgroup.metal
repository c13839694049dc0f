// Classic 16x16 shared-memory tiled GEMM (no simdgroup matrices), 2-D threadgroups.
#include <metal_stdlib>
using namespace metal;

constant constexpr uint TILE = 16;

kernel void gemm_tiled(device const float* A [[buffer(0)]],
                       device const float* B [[buffer(1)]],
                       device float* C [[buffer(2)]],
                       constant uint3& mnk [[buffer(3)]],
                       uint2 gid [[thread_position_in_grid]],
                       uint2 lid [[thread_position_in_threadgroup]]) {
  threadgroup float As[TILE][TILE];
  threadgroup float Bs[TILE][TILE];
  uint M = mnk.x, N = mnk.y, K = mnk.z;
  float acc = 0.0f;
  for (uint t = 0; t < (K + TILE - 1) / TILE; ++t) {
    uint ak = t * TILE + lid.x, bk = t * TILE + lid.y;
    As[lid.y][lid.x] = (gid.y < M && ak < K) ? A[gid.y * K + ak] : 0.0f;
    Bs[lid.y][lid.x] = (bk < K && gid.x < N) ? B[bk * N + gid.x] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint k = 0; k < TILE; ++k) acc = fma(As[lid.y][k], Bs[k][lid.x], acc);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (gid.y < M && gid.x < N) C[gid.y * N + gid.x] = acc;
}
