#include <metal_stdlib>
using namespace metal;

// Counts the elements above a threshold: simd_sum of the per-lane hits, then lane 0 of
// each SIMD-group adds its count to count[0] (zeroed by the host), which is updated
// through a device atomic_uint view of the uint buffer. One threadgroup of 128.
// BUG: SIMD-group 0 "initialises" the counter with a plain store while the other
// SIMD-groups add atomically: a plain write and atomic adds to the same word.
kernel void count_above(
    device const float* x         [[buffer(0)]],
    device uint*        count     [[buffer(1)]],
    constant float&     threshold [[buffer(2)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lane [[thread_index_in_simdgroup]],
    ushort sg   [[simdgroup_index_in_threadgroup]])
{
    const uint hits = simd_sum(x[gid] > threshold ? 1u : 0u);
    if (lane == 0) {
        if (sg == 0) {
            count[0] = hits;
        } else {
            atomic_fetch_add_explicit((device atomic_uint*)count, hits, memory_order_relaxed);
        }
    }
}
