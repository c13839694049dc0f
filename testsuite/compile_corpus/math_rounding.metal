// Rounding family and remainder functions used by quantizers.
#include <metal_stdlib>
using namespace metal;

kernel void quantize_round(device const float* x [[buffer(0)]],
                           device char* q [[buffer(1)]],
                           device float* rem [[buffer(2)]],
                           constant float& scale [[buffer(3)]],
                           uint i [[thread_position_in_grid]]) {
  float v = x[i] / scale;
  float r = round(v) + rint(v) + trunc(v) + floor(v) + ceil(v);
  q[i] = char(clamp(rint(v), -128.0f, 127.0f));
  float ip;
  float fr = modf(v, ip);
  int e;
  float mant = frexp(v, e);
  rem[i] = r + fmod(v, 3.0f) + fract(v) + fr + ip + ldexp(mant, e) + fdim(v, 1.0f) + float(ilogb(v));
}

kernel void rounding_vec(device const half2* x [[buffer(0)]], device half2* out [[buffer(1)]],
                         uint i [[thread_position_in_grid]]) {
  half2 v = x[i];
  int2 e;
  half2 m = frexp(v, e);
  int2 ex = ilogb(v);
  out[i] = floor(v) + ceil(v) + round(v) + fract(v) + ldexp(m, e) + precise::fmod(v, half2(2.0h)) + half2(ex);
}
