#include <metal_stdlib>
using namespace metal;

// A loop whose trip count comes from a buffer (1 here) holds the only barriers: each round every
// thread publishes its value in threadgroup memory and reads its right neighbour's.
kernel void k(device const float* x [[buffer(0)]], device float* out [[buffer(1)]], constant uint& rounds [[buffer(2)]],
              uint gid [[thread_position_in_grid]], uint lid [[thread_position_in_threadgroup]],
              uint n [[threads_per_threadgroup]]) {
  threadgroup float tile[64];
  float v = x[gid];
  for (uint r = 0; r < rounds; ++r) {
    tile[lid] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v = v + tile[(lid + 1) % n];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[gid] = v;
}
