// Templated kernels with explicit instantiation and [[host_name]] (both ggml and MLX spellings).
#include <metal_stdlib>
using namespace metal;

template <typename T, typename U>
kernel void cast_copy(device const T* in [[buffer(0)]], device U* out [[buffer(1)]],
                      uint gid [[thread_position_in_grid]]) {
  out[gid] = static_cast<U>(in[gid]);
}

typedef decltype(cast_copy<float, half>) cast_copy_t;
template [[host_name("cast_f32_f16")]] kernel cast_copy_t cast_copy<float, half>;
template [[host_name("cast_f16_f32")]] kernel void cast_copy<half, float>(device const half*, device float*, uint);

template <typename T>
[[kernel]] void scale_by(device T* data [[buffer(0)]], constant T& s [[buffer(1)]],
                         uint gid [[thread_position_in_grid]]) {
  data[gid] *= s;
}

#define instantiate_kernel(name, func, ...) \
  template [[host_name(name)]] [[kernel]] decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;

instantiate_kernel("scale_by_float", scale_by, float)
instantiate_kernel("scale_by_half", scale_by, half)
instantiate_kernel("scale_by_int", scale_by, int)
