// Threadgroup atomics: a local histogram in threadgroup memory flushed to device memory.
#include <metal_stdlib>
using namespace metal;

kernel void histogram_local(device const uchar* pixels [[buffer(0)]],
                            device atomic_uint* global_bins [[buffer(1)]],
                            constant uint& n [[buffer(2)]],
                            uint gid [[thread_position_in_grid]],
                            uint lid [[thread_index_in_threadgroup]],
                            uint ntg [[threads_per_threadgroup]]) {
  threadgroup atomic_uint bins[256];
  threadgroup atomic_int signed_bins[4];
  threadgroup atomic_bool seen_zero;
  for (uint b = lid; b < 256; b += ntg) atomic_store_explicit(&bins[b], 0u, memory_order_relaxed);
  if (lid < 4) atomic_store_explicit(&signed_bins[lid], 0, memory_order_relaxed);
  if (lid == 0) atomic_store_explicit(&seen_zero, false, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (gid < n) {
    uchar p = pixels[gid];
    atomic_fetch_add_explicit(&bins[p], 1u, memory_order_relaxed);
    atomic_fetch_max_explicit(&signed_bins[p & 3], int(p), memory_order_relaxed);
    if (p == 0) atomic_exchange_explicit(&seen_zero, true, memory_order_relaxed);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint b = lid; b < 256; b += ntg) {
    uint c = atomic_load_explicit(&bins[b], memory_order_relaxed);
    if (c) atomic_fetch_add_explicit(&global_bins[b], c, memory_order_relaxed);
  }
  bool z = atomic_load_explicit(&seen_zero, memory_order_relaxed);
  bool expect = true;
  atomic_compare_exchange_weak_explicit(&seen_zero, &expect, false, memory_order_relaxed, memory_order_relaxed);
  if (z && lid == 0) atomic_fetch_add_explicit(&global_bins[256], 1u, memory_order_relaxed);
}
