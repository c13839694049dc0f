// Trigonometry and hyperbolic functions on float4, precise and fast variants.
#include <metal_math>
#include <metal_stdlib>
using namespace metal;

kernel void trig_table(device const float4* x [[buffer(0)]],
                       device float4* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  float4 v = x[i];
  float4 s = sin(v) + cos(v) + tan(v * 0.25f);
  float4 inv = asin(clamp(v, -1.0f, 1.0f)) + acos(clamp(v, -1.0f, 1.0f)) + atan(v) + atan2(v, v + 1.0f);
  float4 h = sinh(v) + cosh(v) + tanh(v);
  float4 ih = asinh(v) + acosh(abs(v) + 1.0f) + atanh(v * 0.5f);
  float4 pi = sinpi(v) + cospi(v) + tanpi(v * 0.1f);
  float4 c;
  float4 sn = sincos(v, c);
  out[i] = s + inv + h + ih + pi + sn * c;
}

kernel void trig_precise_fast(device const float* x [[buffer(0)]],
                              device float* out [[buffer(1)]],
                              uint i [[thread_position_in_grid]]) {
  float v = x[i];
  out[i] = precise::sin(v) + precise::cos(v) + precise::tan(v) + precise::sinh(v) + precise::cosh(v) +
           precise::tanh(v) + fast::sin(v) + fast::cos(v) + fast::tanh(v) + precise::atan2(v, 2.0f);
}
