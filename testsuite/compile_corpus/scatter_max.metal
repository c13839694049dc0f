// Scatter with max reduction into integer buckets via atomic_fetch_max_explicit on device memory.
#include <metal_stdlib>
using namespace metal;

kernel void scatter_max(device const int* values [[buffer(0)]],
                        device const uint* bucket [[buffer(1)]],
                        device atomic_int* out [[buffer(2)]],
                        device atomic_uint* touched [[buffer(3)]],
                        uint gid [[thread_position_in_grid]]) {
  uint b = bucket[gid];
  atomic_fetch_max_explicit(&out[b], values[gid], memory_order_relaxed);
  atomic_fetch_or_explicit(&touched[b / 32], 1u << (b % 32), memory_order_relaxed);
}
