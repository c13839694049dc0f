// atomic_float accumulation (scatter-add) and an MLX-style CAS loop for float max.
#include <metal_stdlib>
using namespace metal;

template <typename T>
METAL_FUNC void atomic_max_cas(device atomic<T>* obj, T val) {
  T expected = atomic_load_explicit(obj, memory_order_relaxed);
  while (expected < val && !atomic_compare_exchange_weak_explicit(obj, &expected, val, memory_order_relaxed,
                                                                  memory_order_relaxed)) {
  }
}

kernel void scatter_add(device const float* src [[buffer(0)]],
                        device const uint* idx [[buffer(1)]],
                        device atomic_float* dst [[buffer(2)]],
                        device atomic<float>* running_max [[buffer(3)]],
                        uint gid [[thread_position_in_grid]]) {
  float v = src[gid];
  atomic_fetch_add_explicit(&dst[idx[gid]], v, memory_order_relaxed);
  atomic_fetch_sub_explicit(&dst[0], 0.5f * v, memory_order_relaxed);
  float prev = atomic_exchange_explicit(&dst[1], v, memory_order_relaxed);
  atomic_store_explicit(&dst[2], prev, memory_order_relaxed);
  atomic_max_cas(running_max, v);
}
