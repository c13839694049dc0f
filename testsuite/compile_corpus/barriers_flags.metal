// Barrier flavours: mem_none execution barriers, device|threadgroup combinations, simdgroup
// barriers between SIMD-scoped phases, and the flags SPIRV-Cross emits (with mem_texture).
#include <metal_stdlib>
using namespace metal;

kernel void staged(device float* data [[buffer(0)]],
                   uint gid [[thread_position_in_grid]],
                   uint lid [[thread_index_in_threadgroup]],
                   uint lane [[thread_index_in_simdgroup]]) {
  threadgroup float stage[256];
  stage[lid] = data[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float left = stage[(lid + 255) % 256];
  simdgroup_barrier(mem_flags::mem_none);
  float x = simd_shuffle_xor(left, 1);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  threadgroup_barrier(mem_flags::mem_none);
  data[gid] = x;
  threadgroup_barrier(mem_flags::mem_device);
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup | mem_flags::mem_texture);
  data[gid] += stage[lid] * float(lane == 0);
}
