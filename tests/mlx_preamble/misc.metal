// Limits, WorkPerThread, ceildiv, defines.h constants, ConditionalType, cast_to, mlx::os_log and the
// instantiate_kernel macro, plus SIMD shuffles of 64-bit, bool and complex values.
#include <__mslsim/mlx_preamble.h>

constant mlx::os_log logger("mlx", "preamble_test");

template <typename T> METAL_FUNC int64_t bits_of(T v) {
  if constexpr (sizeof(T) == 2) return int64_t(as_type<uint16_t>(v));
  else if constexpr (sizeof(T) == 4) return int64_t(as_type<uint32_t>(v));
  else return as_type<int64_t>(v);
}
#define LIM(T, o, k)                           \
  o[k + 0] = bits_of(Limits<T>::max);          \
  o[k + 1] = bits_of(Limits<T>::min);          \
  o[k + 2] = bits_of(Limits<T>::finite_max);   \
  o[k + 3] = bits_of(Limits<T>::finite_min);

[[kernel]] void custom_kernel_limits_int64_t(
  device int64_t* out [[buffer(0)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  if (thread_position_in_grid.x != 0) return;
  logger.log_debug("limits kernel, thread %u", thread_position_in_grid.x);
  mlx::os_log local("mlx", "local");
  local.log_info("%d", 1);
  // Floats by bit pattern (sign-extended from their width is not wanted: zero-extended).
  LIM(float, out, 0)
  LIM(float16_t, out, 4)
  LIM(bfloat16_t, out, 8)
  // Integers by value.
  out[12] = Limits<int8_t>::max;   out[13] = Limits<int8_t>::min;
  out[14] = Limits<uint8_t>::max;  out[15] = Limits<uint8_t>::min;
  out[16] = Limits<int16_t>::max;  out[17] = Limits<int16_t>::min;
  out[18] = Limits<uint16_t>::max; out[19] = Limits<uint16_t>::min;
  out[20] = Limits<int32_t>::max;  out[21] = Limits<int32_t>::min;
  out[22] = Limits<uint32_t>::max; out[23] = Limits<uint32_t>::min;
  out[24] = Limits<int64_t>::max;  out[25] = Limits<int64_t>::min;
  out[26] = int64_t(Limits<uint64_t>::max); out[27] = int64_t(Limits<uint64_t>::min);
  out[28] = Limits<bool>::max;     out[29] = Limits<bool>::min;
  out[30] = Limits<int32_t>::finite_max; out[31] = Limits<int8_t>::finite_min;
  // WorkPerThread<T>::n = 8 / sizeof(T).
  out[32] = WorkPerThread<bool>::n;  out[33] = WorkPerThread<float16_t>::n;
  out[34] = WorkPerThread<float>::n; out[35] = WorkPerThread<int64_t>::n;
  out[36] = WorkPerThread<complex64_t>::n;
  // ceildiv keeps the type of its first argument.
  out[37] = ceildiv(10, 3);  out[38] = ceildiv(9, 3);  out[39] = ceildiv(uint(1), 4);
  out[40] = ceildiv(int64_t(1) << 40, 3);
  out[41] = int64_t(is_same_v<decltype(ceildiv(size_t(7), 2)), size_t>);
  // defines.h
  out[42] = MAX_REDUCE_SPECIALIZED_DIMS; out[43] = REDUCE_N_READS; out[44] = REDUCE_N_WRITES;
  out[45] = SOFTMAX_N_READS; out[46] = RMS_N_READS; out[47] = RMS_LOOPED_LIMIT;
  // ConditionalType
  out[48] = sizeof(ConditionalType<true, int64_t, uint8_t>::type);
  out[49] = sizeof(ConditionalType<false, int64_t, uint8_t>::type);
  // cast_to: bool specialisations and the generic static_cast.
  out[50] = cast_to<bool>(0.0f); out[51] = cast_to<bool>(-0.0f); out[52] = cast_to<bool>(NAN);
  out[53] = cast_to<bool>(1e-40f);                                       // a denormal is true
  out[54] = cast_to<bool>(bfloat16_t(0.0f)); out[55] = cast_to<bool>(-bfloat16_t(0.0f));
  out[56] = cast_to<bool>(bfloat16_t(0.5f));
  out[57] = cast_to<bool>(complex64_t(0.0f, 0.0f)); out[58] = cast_to<bool>(complex64_t(0.0f, -3.0f));
  out[59] = cast_to<int>(-2.75f); out[60] = cast_to<uint8_t>(300);
  out[61] = bits_of(cast_to<float16_t>(true));
  out[62] = bits_of(bfloat16_to_uint16(bfloat16_t(-2.0f)));
  out[63] = bits_of(uint16_to_bfloat16(0x3f80));
}

// instantiate_kernel from the preamble, and MLX's spelling of the same line in a user macro.
template <typename T, int N>
[[kernel]] void scale_kernel(
  const device T* in [[buffer(0)]],
  device T* out [[buffer(1)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.x;
  out[i] = in[i] * T(N);
}
instantiate_kernel("scale_float_3", scale_kernel, float, 3)
instantiate_kernel("scale_int_5", scale_kernel, int, 5)
// MLX's defines.h splits this line after `host_name(` with a backslash; see multiline_attr.metal.
#define user_instantiate(name, func, ...) \
  template [[host_name(name)]] [[kernel]] decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;
user_instantiate("scale_float_7", scale_kernel, float, 7)

// SIMD shuffles of 64-bit integers, bools and complex64 (MLX has overloads for these).
[[kernel]] void custom_kernel_shuffle64_int64_t_int64_t(
  const device int64_t* a [[buffer(0)]],
  device int64_t* out [[buffer(1)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.x;
  int64_t v = a[i];
  uint64_t u = uint64_t(v) ^ 0xF0F0F0F000000000ull;
  bool b = (v & 1) != 0;
  complex64_t c(float(i), -float(i) * 0.5f);
  device int64_t* o = out + i * 10;
  o[0] = simd_shuffle_down(v, 3);
  o[1] = int64_t(simd_shuffle_up(u, 5));
  o[2] = simd_shuffle(v, ushort(31 - (i % 32)));
  o[3] = simd_shuffle_and_fill_up(v, -v, 4);
  o[4] = int64_t(simd_shuffle_and_fill_up(u, ~u, 1));
  o[5] = simd_shuffle_down(b, 1);
  o[6] = simd_shuffle_up(b, 1);
  o[7] = simd_shuffle_and_fill_up(b, !b, 2);
  o[8] = int64_t(simd_shuffle_and_fill_up(c, -c, 2).imag * 4.0f);
  o[9] = int64_t(simd_shuffle_up(c, 1).real);
}
