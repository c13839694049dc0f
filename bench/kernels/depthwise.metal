#include <metal_stdlib>
using namespace metal;

// 3-tap depthwise 1-D convolution over x[B][C][L] with per-channel taps k[C][3], zero padding
// at both ends: examples/depthwise_conv3/kernel.metal with the same argument order.
// bench/kernels/depthwise.cl is the same kernel in OpenCL C.
kernel void depthwise3(
    const constant uint* params [[buffer(0)]],   // {B, C, L}
    const device float*  x      [[buffer(1)]],
    const device float*  k      [[buffer(2)]],
    device float*        y      [[buffer(3)]],
    uint tid [[thread_position_in_grid]])
{
    uint B = params[0];
    uint C = params[1];
    uint L = params[2];
    if (tid >= B * C * L) return;

    uint c = (tid / L) % C;
    uint t = tid % L;
    float v0 = (t >= 1) ? x[tid - 1] : 0.0f;
    float v1 = x[tid];
    float v2 = (t + 1 < L) ? x[tid + 1] : 0.0f;

    float acc = v0 * k[c * 3 + 0];
    acc = fma(v1, k[c * 3 + 1], acc);
    acc = fma(v2, k[c * 3 + 2], acc);
    y[tid] = acc;
}
