#include <metal_stdlib>
using namespace metal;

// dst[i] = src[n - 1 - i] + src[2 i + 1]: a mirrored read and a strided one. Under the default
// checks a threadgroup whose reads all stay in `src` runs without per-read checks (the reads move
// by a fixed stride from thread to thread, so checking the first and last thread's covers all);
// the threadgroups where a read leaves `src` must still be caught, and name that read.
// BUG: both indices are one too high: thread 0 reads src[n] (mirrored), the last thread
// src[2 * (n / 2 - 1) + 2] = src[n] (strided).
kernel void mirror_plus_odd(
    device const float* src [[buffer(0)]],
    device float*       dst [[buffer(1)]],
    constant uint&      n   [[buffer(2)]],
    uint i [[thread_position_in_grid]])
{
    float mirrored = src[n - i];
    float odd = src[2 * i + 2];
    dst[i] = mirrored + odd;
}
