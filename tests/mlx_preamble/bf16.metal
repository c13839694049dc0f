// bfloat16_t math and SIMD-group functions as MLX kernels call them. Every result is a bfloat16
// (stored as <u2 bits); row i holds the results of thread i.
#include <__mslsim/mlx_preamble.h>

#define K 25
template <typename T>
[[kernel]] void custom_kernel_bfmath__bfloat16_t_bfloat16_t_bfloat16_t(
  const device bfloat16_t* x [[buffer(0)]],
  device bfloat16_t* out [[buffer(1)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.x;
  T v = x[i];
  device T* o = out + i * K;
  o[0] = metal::exp(v);
  o[1] = metal::precise::sqrt(metal::abs(v));
  o[2] = metal::fast::exp(v);
  o[3] = metal::log(metal::abs(v));
  o[4] = metal::tanh(v);
  o[5] = metal::max(v, T(0));
  o[6] = metal::fma(v, v, T(1));
  o[7] = log1p(metal::abs(v));                      // MLX's global log1p(bfloat16_t)
  o[8] = metal::precise::rsqrt(metal::abs(v));
  o[9] = metal::floor(v * T(3));
  o[10] = simd_sum(v);                              // float reduction, rounded once
  o[11] = simd_prefix_inclusive_sum(v);
  o[12] = simd_prefix_exclusive_sum(v);
  o[13] = simd_shuffle_down(v, 1);
  o[14] = simd_shuffle_up(v, 2);
  o[15] = simd_shuffle_xor(v, 5);
  o[16] = simd_max(v);
  o[17] = simd_min(v);
  o[18] = simd_broadcast(v, 7);
  o[19] = metal::simd_shuffle_and_fill_down(v, T(-1), 3);
  o[20] = simd_product(v * T(0.5f) + T(1));
  o[21] = uint16_to_bfloat16(bfloat16_to_uint16(v) ^ 0x8000);   // bit-level negate
  o[22] = metal::precise::divide(v, T(3));
  o[23] = metal::min3(v, T(0.25f), -v);
  o[24] = simd_xor(v);                              // xor of the lanes' float bit patterns
}

template [[host_name("custom_kernel_bfmath__bfloat16_t_bfloat16_t_bfloat16_t")]] [[kernel]] decltype(custom_kernel_bfmath__bfloat16_t_bfloat16_t_bfloat16_t<bfloat16_t>) custom_kernel_bfmath__bfloat16_t_bfloat16_t_bfloat16_t<bfloat16_t>;

// Every bfloat16 function MLX's bf16_math.h overloads, in metal::, metal::fast:: and metal::precise::.
// Row i, column 3*f + {0,1,2} holds function f of namespace {metal, fast, precise}.
#define NF 51
#define ALL3(f, ...)                          \
  o[k++] = metal::f(__VA_ARGS__);             \
  o[k++] = metal::fast::f(__VA_ARGS__);       \
  o[k++] = metal::precise::f(__VA_ARGS__);
[[kernel]] void custom_kernel_bfall_bfloat16_t_bfloat16_t_bfloat16_t_bfloat16_t(
  const device bfloat16_t* xs [[buffer(0)]],
  const device bfloat16_t* ys [[buffer(1)]],
  const device bfloat16_t* zs [[buffer(2)]],
  device bfloat16_t* out [[buffer(3)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.x;
  bfloat16_t x = xs[i], y = ys[i], z = zs[i];
  bfloat16_t one = bfloat16_t(1.0f);
  device bfloat16_t* o = out + i * 3 * NF;
  int k = 0;
  ALL3(abs, z) ALL3(acos, x) ALL3(acosh, x + one) ALL3(asin, x) ALL3(asinh, z) ALL3(atan, z)
  ALL3(atan2, z, y) ALL3(atanh, x) ALL3(ceil, z) ALL3(cos, z) ALL3(cosh, z) ALL3(cospi, z)
  ALL3(divide, x, y) ALL3(exp, z) ALL3(exp10, z) ALL3(exp2, z) ALL3(fabs, z) ALL3(fdim, x, y)
  ALL3(floor, z) ALL3(fma, x, y, z) ALL3(fmax, x, z) ALL3(fmax3, x, y, z) ALL3(fmedian3, x, y, z)
  ALL3(fmin, x, z) ALL3(fmin3, x, y, z) ALL3(fmod, z, x) ALL3(fract, z)
  int e;
  o[k++] = metal::frexp(y, e); o[k++] = metal::fast::frexp(y, e); o[k++] = bfloat16_t(float(e));
  ALL3(ldexp, z, 3) ALL3(log, y) ALL3(log10, y) ALL3(log2, y) ALL3(max, x, z) ALL3(max3, x, y, z)
  ALL3(median3, x, y, z) ALL3(min, x, z) ALL3(min3, x, y, z) ALL3(nextafter, x, y) ALL3(pow, y, z)
  ALL3(powr, y, x) ALL3(rint, z * bfloat16_t(4.0f)) ALL3(round, z * bfloat16_t(4.0f)) ALL3(rsqrt, y)
  ALL3(sin, z) ALL3(sinh, z) ALL3(sinpi, z) ALL3(sqrt, y) ALL3(tan, z) ALL3(tanh, z) ALL3(tanpi, x)
  ALL3(trunc, z * bfloat16_t(4.0f))
}
