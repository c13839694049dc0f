// Device atomics on int/uint: histogram, min/max tracking, bit flags, exchange and CAS.
#include <metal_atomic>
#include <metal_stdlib>
using namespace metal;

kernel void histogram_device(device const uint* keys [[buffer(0)]],
                             device atomic_uint* bins [[buffer(1)]],
                             device atomic_int* extrema [[buffer(2)]],
                             device atomic_uint* flags [[buffer(3)]],
                             uint gid [[thread_position_in_grid]]) {
  uint k = keys[gid];
  atomic_fetch_add_explicit(&bins[k % 64], 1u, memory_order_relaxed);
  atomic_fetch_sub_explicit(&bins[64], 1u, memory_order_relaxed);
  atomic_fetch_min_explicit(&extrema[0], int(k), memory_order_relaxed);
  atomic_fetch_max_explicit(&extrema[1], int(k), memory_order_relaxed);
  atomic_fetch_or_explicit(&flags[0], 1u << (k & 31), memory_order_relaxed);
  atomic_fetch_and_explicit(&flags[1], ~(1u << (k & 31)), memory_order_relaxed);
  atomic_fetch_xor_explicit(&flags[2], k, memory_order_relaxed);
  uint old = atomic_exchange_explicit(&flags[3], k, memory_order_relaxed);
  atomic_store_explicit(&flags[4], old, memory_order_relaxed);
  uint seen = atomic_load_explicit(&flags[4], memory_order_relaxed);
  uint expected = seen;
  while (!atomic_compare_exchange_weak_explicit(&flags[5], &expected, expected + 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

kernel void count_equal(device const int* a [[buffer(0)]], device const int* b [[buffer(1)]],
                        device atomic_int* count [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
  if (a[gid] == b[gid]) atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
}
