#include <metal_stdlib>
using namespace metal;

// A row softmax as MLX writes it (mlx/backend/metal/kernels/softmax.h, the looped variant): one
// threadgroup per row, each thread reading a strided share of the row; the row's maximum and then
// its sum of exponentials are reduced by simd_max / simd_sum inside each SIMD-group and across the
// SIMD-groups through threadgroup memory. bench/kernels/softmax.cl is the OpenCL C version.
kernel void softmax_rows(
    device const float* x     [[buffer(0)]],
    device float*       y     [[buffer(1)]],
    constant uint&      width [[buffer(2)]],
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

    float m = -INFINITY;
    for (uint i = lid; i < width; i += size) m = max(m, in[i]);
    m = simd_max(m);
    if (lane == 0) partial[sg] = m;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    m = simd_max(lane < nsg ? partial[lane] : -INFINITY);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    float s = 0.0f;
    for (uint i = lid; i < width; i += size) s += exp(in[i] - m);
    s = simd_sum(s);
    if (lane == 0) partial[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    s = simd_sum(lane < nsg ? partial[lane] : 0.0f);

    float inv = 1.0f / s;
    for (uint i = lid; i < width; i += size) out[i] = exp(in[i] - m) * inv;
}
