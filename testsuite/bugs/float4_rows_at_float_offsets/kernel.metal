#include <metal_stdlib>
using namespace metal;

// Scales a 9 x 7 float matrix, four columns at a time through float4 pointers, the way ggml's
// kernel_mul_mm writes its result rows (`device float4 *D4 = (device float4 *)(dst + ...)`); the
// last three columns of each row one by one.
// BUG (portability): row r starts at float offset 7r, so for r not a multiple of 4 the float4
// accesses are 4- or 8-byte aligned while MSL gives a float4 pointer 16-byte alignment. Apple
// GPUs execute them, and so does mslsim (the results are right in every mode); `--check align`
// reports them.
kernel void scale_rows(
    device const float* src   [[buffer(0)]],
    device float*       dst   [[buffer(1)]],
    constant float&     scale [[buffer(2)]],
    uint r [[thread_position_in_grid]])
{
    device const float4* s4 = (device const float4*)(src + 7 * r);
    device float4* d4 = (device float4*)(dst + 7 * r);
    d4[0] = s4[0] * scale;
    for (uint c = 4; c < 7; ++c) dst[7 * r + c] = src[7 * r + c] * scale;
}
