#include <metal_stdlib>
using namespace metal;

// Two passes through a device scratch buffer within each threadgroup of 256: every
// thread stores x^2 in scratch, then adds its own square and the square of the mirrored
// thread (255 - lid, in another SIMD-group).
// The barrier carries mem_device, which orders the scratch buffer.
kernel void mirror_square_sum(
    device const float* x       [[buffer(0)]],
    device float*       scratch [[buffer(1)]],
    device float*       y       [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    scratch[gid] = x[gid] * x[gid];
    threadgroup_barrier(mem_flags::mem_device);
    const uint mirror = gid - lid + (tpg - 1 - lid);
    y[gid] = scratch[gid] + scratch[mirror];
}
