// 3-tap depthwise 1-D convolution over x[B][C][L] with per-channel taps k[C][3], zero padding
// at both ends: bench/kernels/depthwise.metal in OpenCL C.
__kernel void depthwise3(__constant uint* params, __global const float* x, __global const float* k,
                         __global float* y)
{
    uint B = params[0];
    uint C = params[1];
    uint L = params[2];
    uint tid = get_global_id(0);
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
