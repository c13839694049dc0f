// The signature MLX generates for test_custom_kernel_args (contract §4.3): bool/int/dtype template
// arguments, small arrays in `constant`, a bfloat16 (2,2) input, a 0-d float scalar, two outputs.
// The body is ours; it uses every argument.
#include <__mslsim/mlx_preamble.h>

template <bool e, int f, typename T>
[[kernel]] void custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t(
  const device float* a [[buffer(0)]],
  const constant int32_t* b [[buffer(1)]],
  const constant bfloat16_t* c [[buffer(2)]],
  const constant float& d [[buffer(3)]],
  device float* out1 [[buffer(4)]],
  device int32_t* out2 [[buffer(5)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.y * 2 + thread_position_in_grid.x;
  T t = T(a[i * 3]);                       // float16_t arithmetic
  out1[i] = e ? float(t * T(2)) + float(c[i % 4]) * d : 0.0f;
  out2[i] = f * b[i % 3] + int32_t(e);
}

template [[host_name("custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t")]] [[kernel]] decltype(custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t<1, 3, float16_t>) custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t<1, 3, float16_t>;
