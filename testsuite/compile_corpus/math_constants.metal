// Math constants of float, half and bfloat used as identities and scale factors.
#include <metal_stdlib>
using namespace metal;

kernel void constants_table(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float f[] = {MAXFLOAT, HUGE_VALF, INFINITY, NAN, FLT_MAX, FLT_MIN, FLT_EPSILON,
               M_E_F, M_LOG2E_F, M_LOG10E_F, M_LN2_F, M_LN10_F, M_PI_F, M_PI_2_F, M_PI_4_F,
               M_1_PI_F, M_2_PI_F, M_2_SQRTPI_F, M_SQRT2_F, M_SQRT1_2_F};
  half h[] = {MAXHALF, HUGE_VALH, M_E_H, M_LOG2E_H, M_LOG10E_H, M_LN2_H, M_LN10_H, M_PI_H, M_PI_2_H,
              M_PI_4_H, M_1_PI_H, M_2_PI_H, M_2_SQRTPI_H, M_SQRT2_H, M_SQRT1_2_H};
  bfloat b[] = {MAXBFLOAT, HUGE_VALBF, M_E_BF, M_LOG2E_BF, M_LOG10E_BF, M_LN2_BF, M_LN10_BF, M_PI_BF,
                M_PI_2_BF, M_PI_4_BF, M_1_PI_BF, M_2_PI_BF, M_2_SQRTPI_BF, M_SQRT2_BF, M_SQRT1_2_BF};
  uint k = i % 20;
  out[i] = f[k] + float(h[k % 15]) + float(b[k % 15]);
}
