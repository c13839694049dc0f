#include <metal_stdlib>
using namespace metal;

// Sum of 256 uints in one threadgroup: simd_sum per SIMD-group, then lane 0 of each of
// the 8 SIMD-groups adds its partial to total[0] with an atomic add.
kernel void simd_partials_accumulate(
    device const uint* x     [[buffer(0)]],
    device atomic_uint* total [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lane [[thread_index_in_simdgroup]])
{
    const uint s = simd_sum(x[gid]);
    if (lane == 0) {
        atomic_fetch_add_explicit(&total[0], s, memory_order_relaxed);
    }
}
