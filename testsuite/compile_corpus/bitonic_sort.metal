// Bitonic sort of one threadgroup's keys in threadgroup memory (MLX's block sort shape).
#include <metal_stdlib>
using namespace metal;

template <typename T, int N>
[[kernel]] void block_sort(device T* data [[buffer(0)]],
                           uint lid [[thread_position_in_threadgroup]],
                           uint tg [[threadgroup_position_in_grid]]) {
  threadgroup T keys[N];
  keys[lid] = data[tg * N + lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint k = 2; k <= uint(N); k <<= 1) {
    for (uint j = k >> 1; j > 0; j >>= 1) {
      uint partner = lid ^ j;
      if (partner > lid) {
        bool up = (lid & k) == 0;
        T a = keys[lid], b = keys[partner];
        if ((a > b) == up) {
          keys[lid] = b;
          keys[partner] = a;
        }
      }
      threadgroup_barrier(mem_flags::mem_threadgroup);
    }
  }
  data[tg * N + lid] = keys[lid];
}
template [[host_name("sort_float_256")]] [[kernel]] decltype(block_sort<float, 256>) block_sort<float, 256>;
template [[host_name("sort_uint_128")]] [[kernel]] decltype(block_sort<uint, 128>) block_sort<uint, 128>;
