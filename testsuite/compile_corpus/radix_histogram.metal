// Radix-sort digit histogram: extract_bits for the digit, simd_ballot-free match counting
// with threadgroup atomics, then an exclusive scan of the counts.
#include <metal_stdlib>
using namespace metal;

kernel void radix_count(device const uint* keys [[buffer(0)]],
                        device uint* counts [[buffer(1)]],
                        constant uint& shift [[buffer(2)]],
                        uint gid [[thread_position_in_grid]],
                        uint lid [[thread_index_in_threadgroup]],
                        uint tg [[threadgroup_position_in_grid]]) {
  threadgroup atomic_uint hist[16];
  if (lid < 16) atomic_store_explicit(&hist[lid], 0u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint digit = extract_bits(keys[gid], shift, 4);
  atomic_fetch_add_explicit(&hist[digit], 1u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid < 32) {
    uint c = lid < 16 ? atomic_load_explicit(&hist[lid], memory_order_relaxed) : 0u;
    uint offset = simd_prefix_exclusive_sum(c);
    if (lid < 16) counts[tg * 16 + lid] = offset;
  }
}
