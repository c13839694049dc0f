#include <metal_stdlib>
using namespace metal;

// Sum of 256 uints into sum[0], one threadgroup of 256 threads, every thread adding
// its element with a plain `+=`. BUG: the read-modify-writes of sum[0] by
// different threads are not ordered (lanes of one SIMD-group: lockstep hazard;
// different SIMD-groups: data race).
kernel void sum_all_threads(
    device const uint* x   [[buffer(0)]],
    device uint*        sum [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    sum[0] += x[gid];
}
