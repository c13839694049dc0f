#include <metal_stdlib>
using namespace metal;

// Lanes take different branches in each iteration of a loop, and each branch calls SIMD- and
// quad-group functions. On the GPU the lanes reconverge after the if/else, so in every iteration
// each function sees exactly the lanes that took its branch in that iteration: a lane that took
// the other branch in iteration i is back with the others in iteration i + 1.
kernel void diverging_loop(device uint* out [[buffer(0)]], device const uint* taken [[buffer(1)]],
                           uint lid [[thread_position_in_threadgroup]]) {
  for (uint i = 0; i < 4; ++i) {
    uint v = lid * 10u + i;
    uint at = (i * 64u + lid) * 2u;
    if (taken[i * 64u + lid]) {
      out[at] = simd_sum(v);
      out[at + 1u] = quad_min(v);
    } else {
      out[at] = 100000u + simd_max(v);
      out[at + 1u] = 100000u + quad_max(v);
    }
  }
}
