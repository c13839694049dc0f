// half arithmetic with h literals, per-operation rounding and conversions to float.
#include <metal_stdlib>
using namespace metal;

kernel void half_axpy(device const half* x [[buffer(0)]],
                      device half* y [[buffer(1)]],
                      constant half& a [[buffer(2)]],
                      uint i [[thread_position_in_grid]]) {
  half v = x[i];
  y[i] = a * v + y[i];
  y[i] += 16.h - 8.H + half(0.5f) * 2.0h;
  half4 h4 = half4(v, 1.0h, -2.5h, 0.0h);
  float4 f4 = float4(h4);
  y[i] += half(f4.x + f4.y) + h4.z;
  y[i] = clamp(y[i], -MAXHALF, MAXHALF);
}
