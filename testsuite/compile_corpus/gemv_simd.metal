// Matrix-vector product: each SIMD-group owns rows, lanes stride over columns with float4 loads.
#include <metal_stdlib>
using namespace metal;

kernel void gemv(device const float4* A [[buffer(0)]],
                 device const float4* x [[buffer(1)]],
                 device float* y [[buffer(2)]],
                 constant uint& cols4 [[buffer(3)]],
                 constant uint& rows [[buffer(4)]],
                 uint tg [[threadgroup_position_in_grid]],
                 uint sg [[simdgroup_index_in_threadgroup]],
                 uint nsg [[simdgroups_per_threadgroup]],
                 uint lane [[thread_index_in_simdgroup]]) {
  uint row = tg * nsg + sg;
  if (row >= rows) return;
  float acc = 0.0f;
  for (uint c = lane; c < cols4; c += 32) acc += dot(A[row * cols4 + c], x[c]);
  acc = simd_sum(acc);
  if (simd_is_first()) y[row] = acc;
}
