// arange and fill over many element types (MLX's smallest translation unit, generalized).
#include <metal_stdlib>
using namespace metal;

template <typename T>
[[kernel]] void arange(constant const T& start, constant const T& step, device T* out,
                       uint index [[thread_position_in_grid]]) {
  out[index] = start + T(index) * step;
}
template <typename T>
[[kernel]] void fill(constant const T& value [[buffer(0)]], device T* out [[buffer(1)]],
                     uint index [[thread_position_in_grid]]) {
  out[index] = value;
}
#define instantiate_arange_fill(tname, type)                                                             \
  template [[host_name("arange" #tname)]] [[kernel]] decltype(arange<type>) arange<type>;                \
  template [[host_name("fill" #tname)]] [[kernel]] decltype(fill<type>) fill<type>;
instantiate_arange_fill(uint8, uint8_t)
instantiate_arange_fill(uint16, uint16_t)
instantiate_arange_fill(uint32, uint32_t)
instantiate_arange_fill(uint64, uint64_t)
instantiate_arange_fill(int8, int8_t)
instantiate_arange_fill(int16, int16_t)
instantiate_arange_fill(int32, int32_t)
instantiate_arange_fill(int64, int64_t)
instantiate_arange_fill(float16, half)
instantiate_arange_fill(float32, float)
instantiate_arange_fill(bfloat16, bfloat)
