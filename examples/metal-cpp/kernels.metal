// Row softmax as MLX writes it: one threadgroup per row, each thread strides over the row, the
// row's maximum and sum combined with simd_max/simd_sum and a threadgroup array of per-SIMD-group
// partials.
#include <metal_stdlib>
using namespace metal;

kernel void row_softmax(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                        constant uint& columns [[buffer(2)]],
                        uint row [[threadgroup_position_in_grid]],
                        uint t [[thread_position_in_threadgroup]],
                        uint threads [[threads_per_threadgroup]],
                        uint lane [[thread_index_in_simdgroup]],
                        uint simd_group [[simdgroup_index_in_threadgroup]],
                        uint simd_groups [[simdgroups_per_threadgroup]]) {
  threadgroup float partial[32];
  device const float* x = in + row * columns;
  device float* y = out + row * columns;

  float local_max = -INFINITY;
  for (uint c = t; c < columns; c += threads) local_max = max(local_max, x[c]);
  local_max = simd_max(local_max);
  if (lane == 0) partial[simd_group] = local_max;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float row_max = simd_max(lane < simd_groups ? partial[lane] : -INFINITY);
  threadgroup_barrier(mem_flags::mem_threadgroup);

  float local_sum = 0;
  for (uint c = t; c < columns; c += threads) local_sum += exp(x[c] - row_max);
  local_sum = simd_sum(local_sum);
  if (lane == 0) partial[simd_group] = local_sum;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float row_sum = simd_sum(lane < simd_groups ? partial[lane] : 0.0f);

  for (uint c = t; c < columns; c += threads) y[c] = exp(x[c] - row_max) / row_sum;
}
