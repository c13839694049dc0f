// RGB to YCbCr and back in half3 with a float3x3 colour matrix and packed RGB8 input.
#include <metal_stdlib>
using namespace metal;

constant float3x3 kRgbToYcc = float3x3(float3(0.299f, -0.168736f, 0.5f),
                                       float3(0.587f, -0.331264f, -0.418688f),
                                       float3(0.114f, 0.5f, -0.081312f));

kernel void rgb_to_ycc(device const packed_uchar3* rgb [[buffer(0)]],
                       device half4* ycc [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  float3 c = float3(uchar3(rgb[i])) / 255.0f;
  float3 y = kRgbToYcc * c + float3(0.0f, 0.5f, 0.5f);
  half3 h = half3(saturate(y));
  ycc[i] = half4(h, 1.0h);
}
