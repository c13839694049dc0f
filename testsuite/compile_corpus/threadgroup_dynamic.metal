// Dynamically sized threadgroup memory ([[threadgroup(n)]] arguments) for a tiled transpose and
// a two-buffer partial sum.
#include <metal_stdlib>
using namespace metal;

kernel void transpose_tiled(device const float* in [[buffer(0)]],
                            device float* out [[buffer(1)]],
                            constant uint2& dims [[buffer(2)]],
                            threadgroup float* tile [[threadgroup(0)]],
                            uint2 gid [[thread_position_in_grid]],
                            uint2 lid [[thread_position_in_threadgroup]],
                            uint2 tg [[threadgroup_position_in_grid]],
                            uint2 tpt [[threads_per_threadgroup]]) {
  if (gid.x < dims.x && gid.y < dims.y) tile[lid.y * (tpt.x + 1) + lid.x] = in[gid.y * dims.x + gid.x];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint2 o = uint2(tg.y * tpt.y + lid.x, tg.x * tpt.x + lid.y);
  if (o.x < dims.y && o.y < dims.x) out[o.y * dims.y + o.x] = tile[lid.x * (tpt.x + 1) + lid.y];
}

kernel void partial_sums(device const float* in [[buffer(0)]],
                         device float2* out [[buffer(1)]],
                         threadgroup float* sums [[threadgroup(0)]],
                         threadgroup uint* counts [[threadgroup(1)]],
                         uint gid [[thread_position_in_grid]],
                         uint lid [[thread_index_in_threadgroup]],
                         uint tg [[threadgroup_position_in_grid]]) {
  float v = in[gid];
  sums[lid] = v;
  counts[lid] = v > 0.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0) {
    float s = 0;
    uint c = 0;
    for (uint i = 0; i < 32; ++i) { s += sums[i]; c += counts[i]; }
    out[tg] = float2(s, float(c));
  }
}
