#include <metal_stdlib>
using namespace metal;

// y = relu(x) for 512 halves; the kernel also clips x to at most 1 in place for a later
// pass.
// BUG: x is declared `const device half*` and written through a cast.
kernel void relu_and_clip(
    const device half* x [[buffer(0)]],
    device half*       y [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    const half v = x[gid];
    y[gid] = max(v, half(0));
    ((device half*)x)[gid] = min(v, half(1));
}
