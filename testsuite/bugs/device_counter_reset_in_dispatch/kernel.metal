#include <metal_stdlib>
using namespace metal;

// Counts the elements above a threshold over the whole grid in one device counter.
// BUG: thread 0 of the grid clears the counter with a plain store, and a threadgroup_barrier
// orders its own threadgroup's adds after the clear; but nothing orders threadgroups within a
// dispatch: the clear races with the other threadgroups' atomic adds (on a GPU it may erase some).
kernel void count_all(
    device const float*  x     [[buffer(0)]],
    device atomic_uint*  count [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid == 0) *(device uint*)count = 0u;
    threadgroup_barrier(mem_flags::mem_device);
    if (x[gid] > 0.0f) atomic_fetch_add_explicit(count, 1u, memory_order_relaxed);
}
