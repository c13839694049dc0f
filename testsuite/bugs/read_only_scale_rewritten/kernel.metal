#include <metal_stdlib>
using namespace metal;

// y = x * scale[0] for the 192 floats of threadgroups 0, 2 and 3 (of 64 threads each);
// threadgroup 1 has other work.
// BUG: there, its first thread resets the scale in place for a later pass, through a cast of its
// `const device float*`, while the other threadgroups read it in the same dispatch.
kernel void scale_all(
    const device float* scale [[buffer(0)]],
    const device float* x     [[buffer(1)]],
    device float*       y     [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint tg  [[threadgroup_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    if (tg != 1) {
        y[gid] = x[gid] * scale[0];
    } else if (lid == 0) {
        ((device float*)scale)[0] = 1.0f;
    }
}
