// half4/half3 geometric: normal compression and per-pixel distance in half precision.
#include <metal_stdlib>
using namespace metal;

kernel void half_geometry(device const half4* p [[buffer(0)]],
                          device const half4* q [[buffer(1)]],
                          device half4* out [[buffer(2)]],
                          uint i [[thread_position_in_grid]]) {
  half4 a = p[i], b = q[i];
  half d = dot(a, b);
  half len = length(a) + distance(a, b) + length_squared(b) + distance_squared(a, b);
  half3 c = cross(a.xyz, b.xyz);
  half3 n = normalize(a.xyz + half3(0.001h));
  half3 r = reflect(b.xyz, n);
  out[i] = half4(c + r + faceforward(n, b.xyz, n), d + len);
}
