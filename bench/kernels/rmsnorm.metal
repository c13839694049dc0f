#include <metal_stdlib>
using namespace metal;

// RMS normalisation as MLX writes it (mlx/backend/metal/kernels/rms_norm.metal, the looped
// variant): one threadgroup per row, the sum of squares reduced by simd_sum inside each SIMD-group
// and across them through threadgroup memory, then y = x * rsqrt(mean(x^2) + eps) * w.
// bench/kernels/rmsnorm.cl is the OpenCL C version.
kernel void rms_norm_rows(
    device const float* x     [[buffer(0)]],
    device const float* w     [[buffer(1)]],
    device float*       y     [[buffer(2)]],
    constant uint&      width [[buffer(3)]],
    constant float&     eps   [[buffer(4)]],
    uint row  [[threadgroup_position_in_grid]],
    uint lid  [[thread_position_in_threadgroup]],
    uint size [[threads_per_threadgroup]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint nsg  [[simdgroups_per_threadgroup]])
{
    threadgroup float partial[32];
    device const float* in = x + size_t(row) * width;
    device float* out = y + size_t(row) * width;

    float s = 0.0f;
    for (uint i = lid; i < width; i += size) s += in[i] * in[i];
    s = simd_sum(s);
    if (lane == 0) partial[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    s = simd_sum(lane < nsg ? partial[lane] : 0.0f);

    float scale = rsqrt(s / float(width) + eps);
    for (uint i = lid; i < width; i += size) out[i] = in[i] * scale * w[i];
}
