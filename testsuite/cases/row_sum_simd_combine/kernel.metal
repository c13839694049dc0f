#include <metal_stdlib>
using namespace metal;

// One threadgroup per row: each thread accumulates a strided slice of the row,
// simd_sum reduces each SIMD-group, SIMD-group 0 combines the per-SIMD-group
// partials with a second simd_sum, and the row total is broadcast through a
// threadgroup scalar so every thread can normalise its slice.
// The threadgroup has 200 threads (not a multiple of 32): 7 SIMD-groups, the
// last one with 8 active lanes.
kernel void row_sum_normalize(
    device const float* x        [[buffer(0)]],
    device float*       row_sums [[buffer(1)]],
    device float*       y        [[buffer(2)]],
    constant uint&      ncols    [[buffer(3)]],
    uint row       [[threadgroup_position_in_grid]],
    uint lid       [[thread_position_in_threadgroup]],
    uint tpg       [[threads_per_threadgroup]],
    uint simd_lane [[thread_index_in_simdgroup]],
    uint simd_id   [[simdgroup_index_in_threadgroup]],
    uint num_simd  [[simdgroups_per_threadgroup]])
{
    threadgroup float partials[32];
    threadgroup float total;

    device const float* xr = x + row * ncols;
    float acc = 0.0f;
    for (uint c = lid; c < ncols; c += tpg) {
        acc += xr[c];
    }

    float s = simd_sum(acc);
    if (simd_lane == 0) {
        partials[simd_id] = s;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    if (simd_id == 0) {
        float p = (simd_lane < num_simd) ? partials[simd_lane] : 0.0f;
        p = simd_sum(p);
        if (simd_lane == 0) {
            total = p;
        }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    const float t = total;
    if (lid == 0) {
        row_sums[row] = t;
    }
    const float inv = 1.0f / t;
    for (uint c = lid; c < ncols; c += tpg) {
        y[row * ncols + c] = xr[c] * inv;
    }
}
