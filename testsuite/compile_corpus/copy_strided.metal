// General strided copy with 64-bit strides (MLX copy_g style), three-dimensional grid with
// a per-thread loop over the innermost dimension.
#include <metal_stdlib>
using namespace metal;

template <typename T, typename U, typename IdxT = int64_t>
[[kernel]] void copy_g(device const T* src [[buffer(0)]], device U* dst [[buffer(1)]],
                       constant const int* src_shape [[buffer(2)]],
                       constant const int64_t* src_strides [[buffer(3)]],
                       constant const int& ndim [[buffer(5)]],
                       uint3 index [[thread_position_in_grid]],
                       uint3 grid_dim [[threads_per_grid]]) {
  IdxT src_idx = 0;
  uint elem = index.x + grid_dim.x * (index.y + size_t(grid_dim.y) * index.z);
  uint rem = elem;
  for (int d = ndim - 1; d >= 0; --d) {
    src_idx += IdxT(rem % uint(src_shape[d])) * src_strides[d];
    rem /= uint(src_shape[d]);
  }
  dst[elem] = static_cast<U>(src[src_idx]);
}
template [[host_name("copy_g_f32_f16")]] [[kernel]] decltype(copy_g<float, half>) copy_g<float, half>;
template [[host_name("copy_g_i8_i32")]] [[kernel]] decltype(copy_g<int8_t, int32_t>) copy_g<int8_t, int32_t>;
template [[host_name("copy_g_bf16_f32")]] [[kernel]] decltype(copy_g<bfloat, float>) copy_g<bfloat, float>;
