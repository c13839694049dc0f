#include <metal_stdlib>
using namespace metal;

// Subtracts the value of the SIMD-group's last lane from every lane: n = 84 floats,
// threadgroups of 32, so the last threadgroup is a single SIMD-group of 20 lanes.
// BUG: simd_shuffle(v, 31) assumes full SIMD-groups; in the last one lane 31 does not
// exist (only lanes 0..19 are active).
kernel void minus_last_lane(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint   gid [[thread_position_in_grid]],
    uint   tpg [[threads_per_threadgroup]],
    ushort sg  [[simdgroup_index_in_threadgroup]])
{
    const float v = x[gid];
    const float last = simd_shuffle(v, 31);
    out[gid] = v - last;
}
