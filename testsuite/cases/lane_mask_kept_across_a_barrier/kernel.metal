#include <metal_stdlib>
using namespace metal;

// An `if` taken by some lanes of a SIMD-group (lid < 36: all of SIMD-group 0, four lanes of
// SIMD-group 1) before a barrier: after the barrier every lane must be active again for the
// threadgroup atomics. The lanes' mask is kept in memory across the barrier; LLVM's x86 code
// without AVX-512 once read lanes of it a byte apart instead of a bit (lanes 0, 1 and 4 only).
kernel void count_after_divergent_if(device const uint* values [[buffer(0)]],
                                     device uint* out [[buffer(1)]],
                                     threadgroup atomic_uint* counts [[threadgroup(0)]],
                                     uint gid [[thread_position_in_grid]],
                                     uint lid [[thread_index_in_threadgroup]]) {
  atomic_store_explicit(&counts[lid], 0u, memory_order_relaxed);
  if (lid < 36) out[gid] = 5;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  atomic_fetch_add_explicit(&counts[values[gid] % 64], 1000u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] += atomic_load_explicit(&counts[lid], memory_order_relaxed);
}
