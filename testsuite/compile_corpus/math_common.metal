// Common functions: mix, step, smoothstep, saturate, sign, copysign, divide.
#include <metal_common>
#include <metal_stdlib>
using namespace metal;

kernel void blend(device const float4* a [[buffer(0)]],
                  device const float4* b [[buffer(1)]],
                  device float4* out [[buffer(2)]],
                  constant float& t [[buffer(3)]],
                  uint i [[thread_position_in_grid]]) {
  float4 x = a[i], y = b[i];
  float4 m = mix(x, y, t);
  float4 s = step(0.5f, x) + smoothstep(0.0f, 1.0f, y);
  float4 sat = saturate(x) + fast::saturate(y) + precise::saturate(x - y);
  out[i] = m + s + sat + sign(x - y) + copysign(x, y) + divide(x, y + 1.0f) + fast::divide(x, 2.0f);
}

kernel void blend_half(device const half4* a [[buffer(0)]], device half4* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  half4 x = a[i];
  out[i] = mix(x, half4(1.0h), 0.25h) + step(half4(0.0h), x) + smoothstep(0.0h, 1.0h, x) + saturate(x) + sign(x);
}
