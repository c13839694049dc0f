#include <metal_stdlib>
using namespace metal;

// y = relu(x) for 512 halves; the kernel also clips x to at most 1 in place for a later
// pass.
// x is a writable device argument.
kernel void relu_and_clip(
    device half*       x [[buffer(0)]],
    device half*       y [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    const half v = x[gid];
    y[gid] = max(v, half(0));
    x[gid] = min(v, half(1));
}
