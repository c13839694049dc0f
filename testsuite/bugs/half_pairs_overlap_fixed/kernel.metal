#include <metal_stdlib>
using namespace metal;

// Scales pairs of elements by a per-pair weight and stores them as half: thread i handles
// elements 2i and 2i+1, which share a 4-byte word of the output.
kernel void scale_pairs_to_half(
    device const float* x     [[buffer(0)]],
    device const float* w     [[buffer(1)]],
    device half*        y     [[buffer(2)]],
    constant uint&      pairs [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    for (uint k = 0; k < 2; ++k)
        if (2 * gid + k < 2 * pairs)
            y[2 * gid + k] = half(x[2 * gid + k] * w[gid]);
}
