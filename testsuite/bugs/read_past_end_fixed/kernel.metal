#include <metal_stdlib>
using namespace metal;

// Forward differences d[i] = x[i + 1] - x[i] of n = 1000 floats; d has n - 1 elements.
// Only the n - 1 threads with a successor compute.
kernel void forward_difference(
    device const float* x [[buffer(0)]],
    device float*       d [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid + 1 < n) {
        d[gid] = x[gid + 1] - x[gid];
    }
}
