#include <metal_stdlib>
using namespace metal;

// Forward differences d[i] = x[i + 1] - x[i] of n = 1000 floats; d has n - 1 elements.
// BUG: the guard lets thread n - 1 read x[n], one past the end of x (its output slot
// d[n - 1] exists: the host allocated n outputs).
kernel void forward_difference(
    device const float* x [[buffer(0)]],
    device float*       d [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid < n) {
        d[gid] = x[gid + 1] - x[gid];
    }
}
