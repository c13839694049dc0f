// float4x4 / half4x4 matrices: construction, column access, products, transpose, determinant.
#include <metal_matrix>
#include <metal_stdlib>
using namespace metal;

kernel void transform_points(device const float4* pts [[buffer(0)]],
                             constant float4x4& model [[buffer(1)]],
                             device float4* out [[buffer(2)]],
                             device float* dets [[buffer(3)]],
                             uint i [[thread_position_in_grid]]) {
  float4x4 m = model;
  float4x4 id = float4x4(1.0f);
  float4x4 cols = float4x4(m[0], m[1], m[2], m[3]);
  float4x4 t = transpose(m);
  float4x4 prod = m * t + id - cols;
  float4 p = prod * pts[i];
  float4 rowv = pts[i] * m;
  float3x3 m3 = float3x3(m[0].xyz, m[1].xyz, m[2].xyz);
  float2x2 m2 = float2x2(1.0f, 2.0f, 3.0f, 4.0f);
  dets[i] = determinant(m3) + determinant(m2) + determinant(m) + m[1][2];
  out[i] = p + rowv * 2.0f;
}

kernel void matrix_shapes(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float2x3 a = float2x3(float3(1), float3(2));
  float3x2 b = float3x2(float2(1), float2(2), float2(3));
  float2x2 ab = b * a;
  float2x4 c; float4x2 d; float3x4 e; float4x3 f;
  c = float2x4(1.0f); d = float4x2(2.0f); e = float3x4(3.0f); f = float4x3(4.0f);
  half2x2 h2 = half2x2(1.0h); half2x3 h23; half2x4 h24; half3x2 h32; half3x3 h33 = half3x3(2.0h);
  half3x4 h34; half4x2 h42; half4x3 h43; half4x4 h44 = half4x4(half4(1), half4(2), half4(3), half4(4));
  float3x3 conv = float3x3(h33);
  matrix<float, 2, 2> generic = ab * 2.0f;
  out[i] = generic[0][0] + c[1][3] + d[3][1] + e[2][3] + f[3][2] + float(h2[0][0]) + conv[1][1] +
           float(h44[3][3]) + float(transpose(h44)[0][3]) + float(determinant(h2));
  (void)h23; (void)h24; (void)h32; (void)h34; (void)h42; (void)h43;
}
