#include <metal_stdlib>
using namespace metal;

// Sum of 256 uints in one threadgroup: simd_sum per SIMD-group, then lane 0 of each of
// the 8 SIMD-groups adds its partial to total[0]. BUG: with a plain `+=`, so the lane 0s of
// different SIMD-groups of the threadgroup race on total[0].
kernel void simd_partials_accumulate(
    device const uint* x     [[buffer(0)]],
    device uint*        total [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lane [[thread_index_in_simdgroup]])
{
    const uint s = simd_sum(x[gid]);
    if (lane == 0) {
        total[0] += s;
    }
}
