#include <metal_stdlib>
using namespace metal;

// Global histogram with relaxed device atomics, plus the global min and max
// through atomic_fetch_min/max on atomic_int. Values are in [-1000, 1000),
// 40 bins of width 50. Dispatched with exactly n = 5000 threads (last group 136).
kernel void histogram_device(
    device const int* values [[buffer(0)]],
    device atomic_uint* bins [[buffer(1)]],
    device atomic_int*  vmin [[buffer(2)]],
    device atomic_int*  vmax [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    const int v = values[gid];
    const uint bin = uint(v + 1000) / 50u;
    atomic_fetch_add_explicit(&bins[bin], 1u, memory_order_relaxed);
    atomic_fetch_min_explicit(vmin, v, memory_order_relaxed);
    atomic_fetch_max_explicit(vmax, v, memory_order_relaxed);
}
