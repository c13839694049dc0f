// threadgroup arrays declared in nested block scopes of a templated kernel, passed to helper
// functions as threadgroup pointers and references.
#include <metal_stdlib>
using namespace metal;

template <typename T, int N>
METAL_FUNC void tg_reduce(threadgroup T* buf, uint lid) {
  for (uint s = N / 2; s > 0; s >>= 1) {
    if (lid < s) buf[lid] += buf[lid + s];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}

template <typename T>
METAL_FUNC void tg_store(threadgroup T& slot, T v) { slot = v; }

template <typename T, int N>
[[kernel]] void block_sum(device const T* in [[buffer(0)]], device T* out [[buffer(1)]],
                          uint gid [[thread_position_in_grid]], uint lid [[thread_index_in_threadgroup]],
                          uint tg [[threadgroup_position_in_grid]]) {
  {
    threadgroup T buf[N];
    tg_store(buf[lid], in[gid]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    tg_reduce<T, N>(buf, lid);
    if (lid == 0) out[tg] = buf[0];
  }
  if (N > 32) {
    threadgroup T second[N / 2];
    if (lid < N / 2) second[lid] = T(0);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}

template [[host_name("block_sum_f32_128")]] [[kernel]] decltype(block_sum<float, 128>) block_sum<float, 128>;
template [[host_name("block_sum_i32_64")]] [[kernel]] decltype(block_sum<int, 64>) block_sum<int, 64>;
