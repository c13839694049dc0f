// complex64_t / complex32_t from the MLX preamble: operators, comparisons, conversions, log1p,
// cast_to<bool>, Limits, and SIMD shuffles of complex values. Results go to a float row per element.
#include <__mslsim/mlx_preamble.h>

#define K 48
[[kernel]] void custom_kernel_cplx_complex64_t_complex64_t_float(
  const device complex64_t* a [[buffer(0)]],
  const device complex64_t* b [[buffer(1)]],
  device float* out [[buffer(2)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  uint i = thread_position_in_grid.x;
  complex64_t x = a[i], y = b[i];
  device float* o = out + i * K;
  int k = 0;
  auto put = [&](complex64_t z) { o[k++] = z.real; o[k++] = z.imag; };
  put(x + y);                       // 0
  put(x - y);                       // 2
  put(x * y);                       // 4
  put(x / y);                       // 6
  put(x % y);                       // 8
  put(-x);                          // 10
  put(x + 2.0f);                    // 12: MLX scalar forms
  put(3.0f - x);                    // 14
  put(1.0f / y);                    // 16
  put(x * 2.0f);                    // 18: mslsim extras
  put(0.5f * x);                    // 20
  put(x / 4.0f);                    // 22
  complex64_t acc = x;
  acc += y;
  acc += 1.0f;
  acc -= complex64_t(0.0f, 1.0f);
  acc *= y;
  acc /= x;
  put(acc);                         // 24
  o[k++] = float(x < y);            // 26
  o[k++] = float(x <= y);           // 27
  o[k++] = float(x > y);            // 28
  o[k++] = float(x >= y);           // 29
  o[k++] = float(x == y);           // 30
  o[k++] = float(x != y);           // 31
  float re = x;                     // 32: implicit conversion to a scalar = real part
  o[k++] = re;
  float2 v = y;                     // 33: to/from the two-lane vector
  o[k++] = v.x;
  o[k++] = v.y;
  complex64_t fromv = float2(v.y, v.x);
  put(fromv);                       // 35
  complex64_t fromint = int(i);     // 37: scalar -> complex, imag = 0
  put(fromint);
  put(log1p(x));                    // 39
  o[k++] = float(cast_to<bool>(x)); // 41
  o[k++] = float(cast_to<int>(x));  // 42: via the real part
  complex32_t h = x;                // 43: complex64 -> complex32 (half) and arithmetic in half
  complex32_t hh = h * h;
  o[k++] = float(hh.real);
  o[k++] = float(hh.imag);
  o[k++] = float(is_complex_v<complex64_t> + 2 * is_complex_v<float> + 4 * is_complex_v<complex32_t>);  // 45
  o[k++] = float(simd_shuffle_down(x, 1).real);   // 46: complex SIMD shuffles
  o[k++] = float(simd_shuffle(y, 3).imag);        // 47
}

[[kernel]] void custom_kernel_cplx_limits_float(
  device float* out [[buffer(0)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  if (thread_position_in_grid.x != 0) return;
  out[0] = Limits<complex64_t>::max.real;
  out[1] = Limits<complex64_t>::max.imag;
  out[2] = Limits<complex64_t>::min.real;
  out[3] = Limits<complex64_t>::min.imag;
  out[4] = float(sizeof(complex64_t));
  out[5] = float(sizeof(complex32_t));
  constexpr complex64_t c = complex64_t(1.0f, 2.0f) * complex64_t(3.0f, 4.0f);
  static_assert(c.real == -5.0f && c.imag == 10.0f, "constexpr complex multiply");
  out[6] = c.real;
}
