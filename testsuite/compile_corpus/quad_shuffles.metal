// Quad-group operations: 2x2 neighbourhoods of a row-major image, quad reductions and votes.
#include <metal_quadgroup>
#include <metal_stdlib>
using namespace metal;

kernel void quad_filter(device const float* x [[buffer(0)]],
                        device float* out [[buffer(1)]],
                        uint gid [[thread_position_in_grid]],
                        ushort qlane [[thread_index_in_quadgroup]],
                        ushort quad [[quadgroup_index_in_threadgroup]]) {
  float v = x[gid];
  float s = quad_sum(v) + quad_product(v) + quad_max(v) + quad_min(v);
  float n = quad_shuffle(v, ushort(qlane ^ 1)) + quad_shuffle_xor(v, 2) + quad_shuffle_up(v, 1) +
            quad_shuffle_down(v, 1) + quad_shuffle_rotate_up(v, 1) + quad_shuffle_rotate_down(v, 1);
  float f = quad_shuffle_and_fill_up(v, 0.0f, 1) + quad_shuffle_and_fill_down(v, 0.0f, 1) +
            quad_shuffle_and_fill_up(v, 1.0f, 1, 2) + quad_shuffle_and_fill_down(v, 1.0f, 1, 2);
  float b = quad_broadcast(v, 0) + quad_broadcast_first(v);
  float p = quad_prefix_inclusive_sum(v) + quad_prefix_exclusive_sum(v) +
            quad_prefix_inclusive_product(v) + quad_prefix_exclusive_product(v);
  out[gid] = s + n + f + b + p + float(quad);
}

kernel void quad_bits(device const uint* x [[buffer(0)]], device uint* out [[buffer(1)]],
                      uint gid [[thread_position_in_grid]]) {
  uint v = x[gid];
  uint r = quad_and(v) ^ quad_or(v) ^ quad_xor(v);
  quad_vote qv = quad_ballot(v & 1u);
  quad_vote act = quad_active_threads_mask();
  bool al = quad_all(v > 0u), an = quad_any(v > 5u);
  out[gid] = r + uint(uint(quad_vote::vote_t(qv)) + uint(quad_vote::vote_t(act))) + (al ? 1u : 0u) + (an ? 2u : 0u) +
             (quad_is_first() ? 4u : 0u);
}
