// Reduction identities from numeric_limits for every element type (MLX's arg_reduce/sort style).
#include <metal_limits>
#include <metal_stdlib>
using namespace metal;

template <typename T>
struct MaxOp {
  static constexpr T init() { return metal::numeric_limits<T>::lowest(); }
  T operator()(T a, T b) const { return a > b ? a : b; }
};
template <typename T>
struct MinOp {
  static constexpr T init() { return metal::numeric_limits<T>::max(); }
  T operator()(T a, T b) const { return a < b ? a : b; }
};

template <typename T, typename Op>
[[kernel]] void row_reduce(device const T* in [[buffer(0)]], device T* out [[buffer(1)]],
                           constant uint& n [[buffer(2)]], uint row [[thread_position_in_grid]]) {
  Op op;
  T acc = Op::init();
  for (uint i = 0; i < n; ++i) acc = op(acc, in[row * n + i]);
  out[row] = acc;
}

template [[host_name("max_float")]] [[kernel]] decltype(row_reduce<float, MaxOp<float>>) row_reduce<float, MaxOp<float>>;
template [[host_name("min_half")]] [[kernel]] decltype(row_reduce<half, MinOp<half>>) row_reduce<half, MinOp<half>>;
template [[host_name("max_int")]] [[kernel]] decltype(row_reduce<int, MaxOp<int>>) row_reduce<int, MaxOp<int>>;
template [[host_name("min_uchar")]] [[kernel]] decltype(row_reduce<uchar, MinOp<uchar>>) row_reduce<uchar, MinOp<uchar>>;

kernel void limit_values(device float* out [[buffer(0)]]) {
  out[0] = numeric_limits<float>::infinity();
  out[1] = numeric_limits<float>::quiet_NaN();
  out[2] = numeric_limits<float>::min();
  out[3] = float(numeric_limits<half>::max());
  out[4] = float(numeric_limits<bfloat>::infinity());
  out[5] = float(numeric_limits<long>::max());
  out[6] = numeric_limits<float>::epsilon();
  out[7] = float(numeric_limits<ushort>::max() + numeric_limits<short>::min());
}
