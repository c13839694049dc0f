#include <metal_stdlib>
using namespace metal;

// Two-level block reduction (seed pattern): simd_sum / simd_max inside each
// SIMD-group, one partial per SIMD-group in threadgroup memory, thread 0 combines
// the partials and broadcasts the block mean through threadgroup memory.
// Dispatched with exactly n threads: the last threadgroup is partial and its last
// SIMD-group has only 8 active lanes, which the SIMD reductions must ignore.
kernel void simd_reduction_two_level(
    device const float* x         [[buffer(0)]],
    device float*       block_sum [[buffer(1)]],
    device float*       block_max [[buffer(2)]],
    device float*       centered  [[buffer(3)]],
    uint gid       [[thread_position_in_grid]],
    uint lid       [[thread_index_in_threadgroup]],
    uint tg        [[threadgroup_position_in_grid]],
    uint tpg       [[threads_per_threadgroup]],
    uint simd_lane [[thread_index_in_simdgroup]],
    uint simd_id   [[simdgroup_index_in_threadgroup]])
{
    threadgroup float sum_partials[32];
    threadgroup float max_partials[32];
    threadgroup float shared_mean;

    const float v = x[gid];

    // Level 1: within the SIMD-group.
    const float s = simd_sum(v);
    const float m = simd_max(v);
    if (simd_lane == 0) {
        sum_partials[simd_id] = s;
        max_partials[simd_id] = m;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Level 2: combine on thread 0.
    if (lid == 0) {
        const uint nsimd = (tpg + 31) / 32;
        float total = sum_partials[0];
        float mx = max_partials[0];
        for (uint i = 1; i < nsimd; ++i) {
            total += sum_partials[i];
            mx = max(mx, max_partials[i]);
        }
        block_sum[tg] = total;
        block_max[tg] = mx;
        shared_mean = total / float(tpg);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Broadcast: every thread reads the combined value.
    centered[gid] = v - shared_mean;
}
