#include <metal_stdlib>
using namespace metal;

// Sum of 256 uints into sum[0], one threadgroup of 256 threads, every thread adding
// its element with an atomic add.
kernel void sum_all_threads(
    device const uint* x   [[buffer(0)]],
    device atomic_uint* sum [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    atomic_fetch_add_explicit(&sum[0], x[gid], memory_order_relaxed);
}
