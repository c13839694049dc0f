// Geometric functions on float3: lighting-style dot/normalize/reflect/refract.
#include <metal_geometric>
#include <metal_stdlib>
using namespace metal;

kernel void shade(device const float3* n [[buffer(0)]],
                  device const float3* l [[buffer(1)]],
                  device float4* out [[buffer(2)]],
                  uint i [[thread_position_in_grid]]) {
  float3 nn = normalize(n[i]);
  float3 ll = normalize(l[i]);
  float d = dot(nn, ll);
  float3 r = reflect(-ll, nn);
  float3 t = refract(-ll, nn, 0.75f);
  float3 ff = faceforward(nn, -ll, nn);
  float3 c = cross(nn, ll);
  float len = length(c) + length_squared(r) + distance(nn, ll) + distance_squared(t, ff);
  out[i] = float4(r + t + c, d + len);
}

kernel void shade_variants(device const float4* a [[buffer(0)]], device float* out [[buffer(1)]],
                           uint i [[thread_position_in_grid]]) {
  float4 v = a[i];
  out[i] = fast::length(v) + precise::length(v) + fast::distance(v, v.wzyx) + precise::distance(v, 1.0f) +
           fast::normalize(v).x + precise::normalize(v).y + dot(v.xy, v.zw);
}
