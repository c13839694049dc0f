#include <metal_stdlib>
using namespace metal;

#define TILE 16

// y = L x for a lower-triangular n x n matrix, one row per thread, threadgroups of 32;
// x is staged through threadgroup memory TILE elements at a time, and the block sums of
// y are computed through threadgroup memory at the end.
// The tile count is the same for every thread of the threadgroup: enough tiles for
// its last row.
kernel void lower_triangular_matvec(
    device const float* L          [[buffer(0)]],
    device const float* x          [[buffer(1)]],
    device float*       y          [[buffer(2)]],
    device float*       block_sums [[buffer(3)]],
    constant uint&      n          [[buffer(4)]],
    uint row [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float xs[TILE];
    threadgroup float ys[32];
    float acc = 0.0f;
    const uint ntiles = (min(tg * tpg + tpg - 1, n - 1)) / TILE + 1;
    for (uint t = 0; t < ntiles; ++t) {
        if (lid < TILE && t * TILE + lid < n) {
            xs[lid] = x[t * TILE + lid];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        for (uint k = 0; k < TILE; ++k) {
            const uint col = t * TILE + k;
            if (col <= row) {
                acc += L[row * n + col] * xs[k];
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    y[row] = acc;
    ys[lid] = acc;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        float s = 0.0f;
        for (uint i = 0; i < tpg; ++i) {
            s += ys[i];
        }
        block_sums[tg] = s;
    }
}
