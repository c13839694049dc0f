#include <metal_stdlib>
using namespace metal;

// A simdgroup_barrier is the only synchronisation, in a threadgroup of 48 (a full and a partial
// SIMD-group).
kernel void k(device uint* out, uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_barrier(mem_flags::mem_none);
  out[gid] = gid * 3u + lane;
}
