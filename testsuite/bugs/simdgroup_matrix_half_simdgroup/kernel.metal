#include <metal_stdlib>
using namespace metal;

// Each SIMD-group multiplies its own 8x8 block of `a` by the shared 8x8 `b` and adds 1, into
// `out` (threadgroups of 64: two SIMD-groups).
// BUG: the product is made under `if (lane < 16)`: half of each SIMD-group takes part, so half
// of the operands' elements are undefined values and the other lanes store nothing.
kernel void block_products(
    device const float* a   [[buffer(0)]],
    device const float* b   [[buffer(1)]],
    device float*       out [[buffer(2)]],
    uint   simd  [[simdgroup_index_in_threadgroup]],
    uint   lane  [[thread_index_in_simdgroup]],
    uint   group [[threadgroup_position_in_grid]])
{
    const uint block = group * 2 + simd;
    simdgroup_float8x8 ma, mb, mc = make_filled_simdgroup_matrix<float, 8, 8>(1.0f);
    simdgroup_load(ma, a + block * 64, 8);
    simdgroup_load(mb, b, 8);
    if (lane < 16) {
        simdgroup_multiply_accumulate(mc, ma, mb, mc);
        simdgroup_store(mc, out + block * 64, 8);
    }
}
