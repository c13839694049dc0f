#include <metal_stdlib>
using namespace metal;

// Scales each block of 64 floats by 1 / (1 + |x|) of the block's element 32: thread 32
// (lane 0 of SIMD-group 1) computes the scale and publishes it in threadgroup memory.
// BUG: instead of a threadgroup barrier, every thread announces itself on a
// threadgroup atomic counter and spins until all threads of the threadgroup have
// arrived. A spinning thread never lets the others run (no forward-progress guarantee
// between SIMD-groups), so the threadgroup never finishes.
kernel void publish_scale(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float scale;
    threadgroup atomic_uint arrived;
    if (lid == 0) {
        atomic_store_explicit(&arrived, 0u, memory_order_relaxed);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 32) {
        scale = 1.0f / (1.0f + abs(x[gid]));
    }
    atomic_fetch_add_explicit(&arrived, 1u, memory_order_relaxed);
    while (atomic_load_explicit(&arrived, memory_order_relaxed) < tpg) {
    }
    out[gid] = x[gid] * scale;
}
