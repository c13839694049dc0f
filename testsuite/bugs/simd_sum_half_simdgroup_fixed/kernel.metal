#include <metal_stdlib>
using namespace metal;

// Sum of each SIMD-group's 32 floats, written by lane 0 (threadgroups of 64).
// Every lane takes part in simd_sum; only lane 0 stores.
kernel void simd_group_sums(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lane [[thread_index_in_simdgroup]])
{
    const float v = x[gid];
    const float s = simd_sum(v);
    if (lane == 0) {
        out[gid / 32] = s;
    }
}
