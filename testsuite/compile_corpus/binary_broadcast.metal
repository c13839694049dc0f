// Elementwise binary ops with broadcasting (MLX's elem_to_loc with int/long strides), templated
// over the operator and the element type, work-per-thread loop.
#include <metal_stdlib>
using namespace metal;

struct Add { template <typename T> T operator()(T a, T b) { return a + b; } };
struct Maximum {
  template <typename T> T operator()(T a, T b) {
    if constexpr (metal::is_floating_point_v<T>) {
      if (metal::isnan(static_cast<float>(a)) || metal::isnan(static_cast<float>(b))) return a + b;
    }
    return a > b ? a : b;
  }
};

template <typename IdxT = long>
METAL_FUNC IdxT elem_to_loc(uint elem, constant const int* shape, constant const long* strides, int ndim) {
  IdxT loc = 0;
  for (int i = ndim - 1; i >= 0 && elem > 0; --i) {
    loc += IdxT(elem % shape[i]) * IdxT(strides[i]);
    elem /= shape[i];
  }
  return loc;
}

template <typename T, typename Op>
[[kernel]] void binary_g(device const T* a [[buffer(0)]], device const T* b [[buffer(1)]],
                         device T* c [[buffer(2)]], constant const int* shape [[buffer(3)]],
                         constant const long* a_strides [[buffer(4)]], constant const long* b_strides [[buffer(5)]],
                         constant const int& ndim [[buffer(6)]], uint index [[thread_position_in_grid]]) {
  auto ai = elem_to_loc(index, shape, a_strides, ndim);
  auto bi = elem_to_loc(index, shape, b_strides, ndim);
  c[index] = Op()(a[ai], b[bi]);
}
#define instantiate_binary(name, T, Op) \
  template [[host_name(name)]] [[kernel]] decltype(binary_g<T, Op>) binary_g<T, Op>;
instantiate_binary("add_float", float, Add)
instantiate_binary("add_int64", int64_t, Add)
instantiate_binary("max_half", half, Maximum)
instantiate_binary("max_bfloat", bfloat, Maximum)
instantiate_binary("max_uint8", uint8_t, Maximum)
