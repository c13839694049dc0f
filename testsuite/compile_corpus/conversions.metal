// Conversions: static_cast and constructor casts between scalars and vectors, float to int with
// truncation, saturating conversion written with clamp, bool vectors, half/bfloat rounding.
#include <metal_stdlib>
using namespace metal;

kernel void convert_all(device const float4* in [[buffer(0)]],
                        device int4* as_int [[buffer(1)]],
                        device uchar4* as_u8 [[buffer(2)]],
                        device half4* as_half [[buffer(3)]],
                        device bfloat4* as_bf [[buffer(4)]],
                        uint i [[thread_position_in_grid]]) {
  float4 v = in[i];
  as_int[i] = int4(v) + static_cast<int4>(v * 2.0f);
  as_u8[i] = uchar4(clamp(round(v * 255.0f), 0.0f, 255.0f));
  as_half[i] = half4(v) + (half4)(v.wzyx);
  as_bf[i] = bfloat4(v);
  bool4 nz = bool4(v);
  float4 back = float4(nz) + float4(int4(v)) + float4(as_half[i]) + float4(as_bf[i]);
  int s = static_cast<int>(v.x);
  uint u = uint(s) + (uint)v.y;
  short sh = short(u);
  long l = long(sh) * 3;
  as_int[i].x += int(l) + int(back.y) + int(bool(v.z));
}
