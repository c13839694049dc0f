// Vector construction from mixed pieces, xyzw/rgba swizzles (read and write), dynamic indexing.
#include <metal_stdlib>
using namespace metal;

kernel void swizzle_colors(device const float4* in [[buffer(0)]],
                           device float4* out [[buffer(1)]],
                           uint i [[thread_position_in_grid]]) {
  float4 c = in[i];
  float4 bgra = c.bgra;
  float3 rgb = c.rgb;
  float2 xy = c.xy, zw = c.zw;
  float4 rebuilt = float4(xy, zw);
  float4 mixed = float4(c.x, c.yz, 1.0f);
  float4 splat = float4(0.5f);
  float4 t = float4(rgb, c.a) + rebuilt + mixed + splat + bgra + c.xxxx + c.wzyx;
  t.xy = t.yx;
  t.rgb *= 2.0f;
  t.w = c[i % 4];
  t[1] = dot(t.xz, c.yw);
  float2 v2 = float2(c.x, c.g);
  float3 v3 = float3(v2, 0.0f) + float3(v2.yx, 1.0f);
  out[i] = t + float4(v3.zyx, v2.y);
}
