// Mixed precision simdgroup matrices: half inputs with float accumulators, device loads with
// origin and transpose, bfloat matrices, the diagonal constructor and simdgroup_multiply.
#include <metal_stdlib>
using namespace metal;

kernel void mixed_mma(device const half* A [[buffer(0)]],
                      device const half* B [[buffer(1)]],
                      device const bfloat* Cb [[buffer(2)]],
                      device float* D [[buffer(3)]],
                      constant uint& ld [[buffer(4)]]) {
  simdgroup_half8x8 a, b;
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8>(0.0f);
  simdgroup_load(a, A, ld, ulong2(0, 0));
  simdgroup_load(b, B, ld, ulong2(8, 0), true);
  simdgroup_multiply_accumulate(acc, a, b, acc);
  simdgroup_float8x8 ident = simdgroup_float8x8(1.0f);
  simdgroup_float8x8 prod;
  simdgroup_multiply(prod, acc, ident);
  simdgroup_matrix<bfloat, 8, 8> bm;
  simdgroup_load(bm, Cb, 8);
  simdgroup_bfloat8x8 bm2 = bm;
  simdgroup_float8x8 fb;
  simdgroup_multiply_accumulate(fb, bm2, bm, prod);
  simdgroup_store(fb, D, ld, ulong2(0, 8));
  simdgroup_store(prod, D, ld, ulong2(8, 8), true);
  simdgroup_float8x8 viaop = prod * ident;
  simdgroup_store(viaop, D + 64 * ld, ld);
}
