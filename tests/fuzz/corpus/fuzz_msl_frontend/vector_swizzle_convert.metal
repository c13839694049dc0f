#include <metal_stdlib>
using namespace metal;

// Vector constructors, swizzle reads and writes (xyzw and rgba sets),
// component-wise arithmetic, value conversions float4 <-> int4 <-> half4 and a
// bit reinterpretation with as_type. All float results are single IEEE
// operations or exact, so every output is compared exactly.
kernel void vector_swizzle_convert(
    device const float4* a        [[buffer(0)]],
    device const float*  s        [[buffer(1)]],
    device float4*       out_f    [[buffer(2)]],
    device int4*         out_i    [[buffer(3)]],
    device half4*        out_h    [[buffer(4)]],
    device float4*       out_mix  [[buffer(5)]],
    device int4*         out_hi   [[buffer(6)]],
    device uint4*        out_bits [[buffer(7)]],
    uint gid [[thread_position_in_grid]])
{
    const float4 v = a[gid];
    const float x = s[gid];

    // Constructor from a scalar, a 2-component swizzle and an int literal.
    float4 w = float4(x, v.xy, 1);          // (x, v.x, v.y, 1)
    w.zw = w.wz;                            // (x, v.x, 1, v.y)

    const float2 p = v.zw + v.yx;           // (v.z + v.y, v.w + v.x)
    float4 r = float4(p, p.yx) - w.wzyx;    // (p0 - v.y, p1 - 1, p1 - v.x, p0 - x)
    r.xz = r.zx;                            // (p1 - v.x, p1 - 1, p0 - v.y, p0 - x)
    r.g = r.a * 0.5f;                       // (p1 - v.x, (p0 - x)/2, p0 - v.y, p0 - x)
    out_f[gid] = r.abgr;

    // float4 -> int4 converts each component, rounding toward zero.
    int4 iv = int4(v * 10.0f);
    iv.yw = iv.wy + int2(1, -2);            // (i0, i3 + 1, i2, i1 - 2)
    out_i[gid] = iv;

    // float4 -> half4 rounds each component to nearest even.
    const half4 h = half4(w);               // (x, v.x, 1, v.y) in half
    out_h[gid] = h.zwxy;

    // half4 -> float4 and int4 -> float4 are exact; one float add per component.
    out_mix[gid] = float4(h) + float4(iv.wzyx);

    // half4 arithmetic then half4 -> int4 (toward zero).
    out_hi[gid] = int4(h.bgra * 4.0h);

    // Bit reinterpretation: flip the sign bits of x and z.
    out_bits[gid] = as_type<uint4>(v) ^ uint4(0x80000000u, 0u, 0x80000000u, 0u);
}
