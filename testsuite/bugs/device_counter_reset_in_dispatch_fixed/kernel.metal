#include <metal_stdlib>
using namespace metal;

// Counts the elements above a threshold over the whole grid in one device counter, which the host
// zeroes before the dispatch; every thread with a hit adds 1 atomically.
kernel void count_all(
    device const float*  x     [[buffer(0)]],
    device atomic_uint*  count [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    if (x[gid] > 0.0f) atomic_fetch_add_explicit(count, 1u, memory_order_relaxed);
}
