#include <metal_stdlib>
using namespace metal;

// Counts the elements above a threshold per threadgroup of 128 in a threadgroup atomic counter.
// BUG: thread 0 clears the counter with a plain store and only a simdgroup_barrier follows, which
// orders its own SIMD-group's adds after the clear but not those of the other three SIMD-groups:
// their atomic adds race with the plain store (MSL's memory model), and on a GPU the clear may land
// after some of them.
kernel void count_per_group(
    device const float* x      [[buffer(0)]],
    device uint*        counts [[buffer(1)]],
    uint gid   [[thread_position_in_grid]],
    uint lid   [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]])
{
    threadgroup atomic_uint hits;
    if (lid == 0) *(threadgroup uint*)&hits = 0u;
    simdgroup_barrier(mem_flags::mem_threadgroup);
    if (x[gid] > 0.0f) atomic_fetch_add_explicit(&hits, 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) counts[group] = atomic_load_explicit(&hits, memory_order_relaxed);
}
