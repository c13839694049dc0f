#include <metal_stdlib>
using namespace metal;

// Block sums of n = 600 floats in threadgroups of 256: simd_sum per SIMD-group, lane 0
// stores the partial, thread 0 adds the partials. The last threadgroup has 88 threads,
// i.e. 3 SIMD-groups.
// Thread 0 adds as many partials as the threadgroup has SIMD-groups.
kernel void block_sums(
    device const float* x    [[buffer(0)]],
    device float*       sums [[buffer(1)]],
    uint gid  [[thread_position_in_grid]],
    uint lid  [[thread_index_in_threadgroup]],
    uint tg   [[threadgroup_position_in_grid]],
    uint tpg  [[threads_per_threadgroup]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]])
{
    threadgroup float partials[8];
    const float s = simd_sum(x[gid]);
    if (lane == 0) {
        partials[sg] = s;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        const uint nsimd = (tpg + 31) / 32;
        float total = 0.0f;
        for (uint i = 0; i < nsimd; ++i) {
            total += partials[i];
        }
        sums[tg] = total;
    }
}
