// Ballots and votes: compaction offsets from simd_ballot, simd_all/any, is_first, active masks.
#include <metal_stdlib>
using namespace metal;

kernel void compact(device const float* x [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    device atomic_uint* count [[buffer(2)]],
                    uint gid [[thread_position_in_grid]],
                    uint lane [[thread_index_in_simdgroup]]) {
  float v = x[gid];
  bool keep = v > 0.0f;
  simd_vote vote = simd_ballot(keep);
  ulong mask = ulong(vote);
  simd_vote::vote_t raw = static_cast<simd_vote::vote_t>(vote);
  uint before = popcount(uint(mask & ((1ul << lane) - 1)));
  uint total = popcount(uint(raw));
  uint base = 0;
  if (simd_is_first()) base = atomic_fetch_add_explicit(count, total, memory_order_relaxed);
  base = simd_broadcast_first(base);
  if (keep) out[base + before] = v;
  bool all_pos = simd_all(keep), any_pos = simd_any(keep);
  simd_vote act = simd_active_threads_mask();
  if (vote.all() && all_pos && any_pos && act.any()) out[0] += 0.0f;
}
