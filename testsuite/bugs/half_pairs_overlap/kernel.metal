#include <metal_stdlib>
using namespace metal;

// Scales pairs of elements by a per-pair weight and stores them as half: thread i handles
// elements 2i and 2i+1, which share a 4-byte word of the output.
// BUG: the loop was copied from a 3-tap filter that reads elements 2i-1 .. 2i+1: each thread also
// writes the last element of the previous pair with its own weight, racing with the thread that
// owns it, which is in another SIMD-group every 32 threads and in another threadgroup every 64.
kernel void scale_pairs_to_half(
    device const float* x     [[buffer(0)]],
    device const float* w     [[buffer(1)]],
    device half*        y     [[buffer(2)]],
    constant uint&      pairs [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    for (uint k = 0; k < 3; ++k) {
        uint i = 2 * gid + k - 1;  // thread 0: wraps around, and the bound skips it
        if (i < 2 * pairs)
            y[i] = half(x[i] * w[gid]);
    }
}
