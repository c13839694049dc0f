// Polynomial evaluation with Horner's rule in float and half (fma chains), erf approximation.
#include <metal_stdlib>
using namespace metal;

template <typename T>
METAL_FUNC T erf_approx(T x) {
  const T a1 = T(0.254829592f), a2 = T(-0.284496736f), a3 = T(1.421413741f), a4 = T(-1.453152027f),
          a5 = T(1.061405429f), p = T(0.3275911f);
  T s = sign(x);
  x = abs(x);
  T t = T(1) / (T(1) + p * x);
  T y = T(1) - fma(fma(fma(fma(a5, t, a4), t, a3), t, a2), t, a1) * t * exp(-x * x);
  return s * y;
}

kernel void erf_table(device const float* x [[buffer(0)]], device float* yf [[buffer(1)]],
                      device half* yh [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  yf[i] = erf_approx(x[i]);
  yh[i] = erf_approx(half(x[i]));
}
