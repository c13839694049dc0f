#include <metal_stdlib>
using namespace metal;

// 3-tap depthwise 1-D convolution over x[B][C][L] with per-channel taps k[C][3],
// zero padding at both ends (the m2-bert-mlx `depthwise3` kernel, full signature).
kernel void depthwise3(
    const constant uint* params [[buffer(0)]],   // {B, C, L}
    const device float*  x      [[buffer(1)]],
    const device float*  k      [[buffer(2)]],
    device float*        y      [[buffer(3)]],
    uint3 thread_position_in_grid [[thread_position_in_grid]])
{
    uint B = params[0];
    uint C = params[1];
    uint L = params[2];

    uint tid = thread_position_in_grid.x;
    uint total = B * C * L;
    if (tid >= total) return;

    uint b = tid / (C * L);
    uint rem = tid % (C * L);
    uint c = rem / L;
    uint t = rem % L;

    // Zero-pad access
    float v0 = (t >= 1) ? x[b * C * L + c * L + (t - 1)] : 0.0f;
    float v1 = x[b * C * L + c * L + t];
    float v2 = (t + 1 < L) ? x[b * C * L + c * L + (t + 1)] : 0.0f;

    float k0 = k[c * 3 + 0];
    float k1 = k[c * 3 + 1];
    float k2 = k[c * 3 + 2];

    // Fixed order for determinism
    float acc = v0 * k0;
    acc = fma(v1, k1, acc);
    acc = fma(v2, k2, acc);

    y[tid] = acc;
}
