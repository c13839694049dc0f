#include <metal_stdlib>
using namespace metal;

// Scales each block of 64 floats by 1 / (1 + |x|) of the block's element 32: thread 32
// (lane 0 of SIMD-group 1) computes the scale and publishes it in threadgroup memory.
// The readers wait for it at a threadgroup barrier.
kernel void publish_scale(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float scale;
    if (lid == 32) {
        scale = 1.0f / (1.0f + abs(x[gid]));
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[gid] = x[gid] * scale;
}
