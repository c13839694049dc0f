// Row softmax: one threadgroup per row, simd_max/simd_sum reductions, fast::exp.
#include <metal_stdlib>
using namespace metal;

constant constexpr uint SIMD = 32;

kernel void softmax_rows(device const float* x [[buffer(0)]],
                         device float* y [[buffer(1)]],
                         constant uint& cols [[buffer(2)]],
                         uint row [[threadgroup_position_in_grid]],
                         uint lid [[thread_index_in_threadgroup]],
                         uint lane [[thread_index_in_simdgroup]],
                         uint sg [[simdgroup_index_in_threadgroup]],
                         uint tg_size [[threads_per_threadgroup]]) {
  threadgroup float partial[SIMD];
  device const float* in = x + row * cols;
  float m = -INFINITY;
  for (uint i = lid; i < cols; i += tg_size) m = max(m, in[i]);
  m = simd_max(m);
  if (lane == 0) partial[sg] = m;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint nsg = (tg_size + SIMD - 1) / SIMD;
  m = lane < nsg ? partial[lane] : -INFINITY;
  m = simd_max(m);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float s = 0.0f;
  for (uint i = lid; i < cols; i += tg_size) s += fast::exp(in[i] - m);
  s = simd_sum(s);
  if (lane == 0) partial[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  s = simd_sum(lane < nsg ? partial[lane] : 0.0f);
  float inv = 1.0f / s;
  for (uint i = lid; i < cols; i += tg_size) y[row * cols + i] = fast::exp(in[i] - m) * inv;
}
