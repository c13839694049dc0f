#include <metal_stdlib>
using namespace metal;

// Scales a 9 x 7 float matrix, four columns at a time, the last three one by one. The rows start
// at any float offset, so the four columns go through packed_float4 (4-byte aligned).
kernel void scale_rows(
    device const float* src   [[buffer(0)]],
    device float*       dst   [[buffer(1)]],
    constant float&     scale [[buffer(2)]],
    uint r [[thread_position_in_grid]])
{
    device const packed_float4* s4 = (device const packed_float4*)(src + 7 * r);
    device packed_float4* d4 = (device packed_float4*)(dst + 7 * r);
    d4[0] = packed_float4(float4(s4[0]) * scale);
    for (uint c = 4; c < 7; ++c) dst[7 * r + c] = src[7 * r + c] * scale;
}
