// 64-bit atomic min/max (atomic_ulong), packing a value and its index into one word, and
// the generic atomic<T> template with the non-explicit load/store.
#include <metal_stdlib>
using namespace metal;

kernel void argmax_packed(device const float* x [[buffer(0)]],
                          device atomic_ulong* best [[buffer(1)]],
                          device atomic<uint>* counter [[buffer(2)]],
                          uint gid [[thread_position_in_grid]]) {
  uint bits = as_type<uint>(x[gid]);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  ulong key = (ulong(bits) << 32) | ulong(gid);
  atomic_max_explicit(&best[0], key, memory_order_relaxed);
  atomic_min_explicit(&best[1], key, memory_order_relaxed);
  uint c = atomic_load(counter);
  atomic_store(counter, c);
}
