#include <metal_stdlib>
using namespace metal;

// out[i] = start + step * i for i < n = 1000; dispatched as 4 threadgroups of 256, so
// the grid is rounded up to 1024 threads.
// The guard is gid < n.
kernel void linspace_fill(
    device float*   out   [[buffer(0)]],
    constant float& start [[buffer(1)]],
    constant float& step  [[buffer(2)]],
    constant uint&  n     [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid < n) {
        out[gid] = start + step * float(gid);
    }
}
