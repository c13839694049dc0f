#include <metal_stdlib>
using namespace metal;

// half arithmetic: every + - * rounds to half (IEEE binary16, nearest even).
// No product feeds an addition directly, so fp contraction cannot change the
// result, and inputs are chosen so that no result is subnormal: the outputs
// are compared bit-exactly against numpy float16 doing the same operations in
// the same order.
kernel void half_arith(
    device const half* a    [[buffer(0)]],
    device const half* b    [[buffer(1)]],
    device const half* c    [[buffer(2)]],
    device const half* seq  [[buffer(3)]],    // 8 values per element
    device half*       out  [[buffer(4)]],    // 6 values per element
    device half4*      out4 [[buffer(5)]],
    uint gid [[thread_position_in_grid]])
{
    const half x = a[gid];
    const half y = b[gid];
    const half z = c[gid];
    device half* o = out + gid * 6;

    o[0] = (x + y) * z;
    o[1] = (x - z) * (y + 1.5h);
    o[2] = max(x, y) - min(y, z);
    o[3] = x * y * z;                          // (x * y) * z

    half acc = 0.0h;
    for (uint k = 0; k < 8; ++k) {
        acc += seq[gid * 8 + k];               // sequential, rounded every step
    }
    o[4] = acc * 0.125h;

    o[5] = half(float(x) * float(y)) - z;      // float product, rounded to half, then subtract

    const half4 hv = half4(x, y, z, 2.0h);
    out4[gid] = (hv - hv.yzwx) * hv.zxyw;
}
