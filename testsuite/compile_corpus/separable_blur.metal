// Separable Gaussian blur on a row-major RGBA float4 image held in buffers (no textures):
// threadgroup row cache with a halo, constant weights table.
#include <metal_stdlib>
using namespace metal;

constant float kGauss5[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

kernel void blur_rows(device const float4* src [[buffer(0)]],
                      device float4* dst [[buffer(1)]],
                      constant uint2& size [[buffer(2)]],
                      uint2 gid [[thread_position_in_grid]],
                      uint2 lid [[thread_position_in_threadgroup]],
                      uint2 tpt [[threads_per_threadgroup]]) {
  threadgroup float4 row[64 + 4];
  uint y = min(gid.y, size.y - 1);
  int x = int(gid.x) - 2;
  row[lid.x] = src[y * size.x + uint(clamp(x, 0, int(size.x) - 1))];
  if (lid.x < 4) row[tpt.x + lid.x] = src[y * size.x + uint(clamp(x + int(tpt.x), 0, int(size.x) - 1))];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float4 acc = 0.0f;
  for (int k = 0; k < 5; ++k) acc += kGauss5[k] * row[lid.x + k];
  if (gid.x < size.x && gid.y < size.y) dst[gid.y * size.x + gid.x] = acc;
}
