#include <metal_stdlib>
using namespace metal;

// Scales each block of 64 floats by 1 / (1 + |x|) of the block's element 32: thread 32
// (lane 0 of SIMD-group 1) computes the scale and publishes it in threadgroup memory.
// BUG: the other threads spin on a threadgroup atomic flag until thread 32 sets it; a
// waiting thread never lets thread 32 run (no forward-progress guarantee between
// SIMD-groups), so the threadgroup never finishes.
kernel void publish_scale(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup float scale;
    threadgroup atomic_uint ready;
    if (lid == 0) {
        atomic_store_explicit(&ready, 0u, memory_order_relaxed);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 32) {
        scale = 1.0f / (1.0f + abs(x[gid]));
        atomic_store_explicit(&ready, 1u, memory_order_relaxed);
    }
    while (atomic_load_explicit(&ready, memory_order_relaxed) == 0u) {
    }
    out[gid] = x[gid] * scale;
}
