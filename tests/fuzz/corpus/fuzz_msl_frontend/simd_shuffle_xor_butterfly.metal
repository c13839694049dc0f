#include <metal_stdlib>
using namespace metal;

// Butterfly all-reduce with simd_shuffle_xor (masks 16, 8, 4, 2, 1): after the
// loop every lane holds the SIMD-group's max and its count of positive values.
// Each thread then writes x - max (exact in float) and the count.
// 300 elements, grid rounded up to 320 so every SIMD-group is full; the 20
// padding threads contribute the identities (-FLT_MAX, 0) and write nothing.
kernel void simd_xor_max_count(
    device const float* x         [[buffer(0)]],
    device float*       centered  [[buffer(1)]],
    device int*         pos_count [[buffer(2)]],
    constant uint&      n         [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    const bool valid = gid < n;
    const float v = valid ? x[gid] : -FLT_MAX;
    float m = v;
    int cnt = (valid && v > 0.0f) ? 1 : 0;
    for (uint mask = 16; mask > 0; mask >>= 1) {
        m = max(m, simd_shuffle_xor(m, ushort(mask)));
        cnt += simd_shuffle_xor(cnt, ushort(mask));
    }
    if (valid) {
        centered[gid] = v - m;
        pos_count[gid] = cnt;
    }
}
