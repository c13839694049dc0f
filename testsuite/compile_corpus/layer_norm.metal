// Layer norm with Welford-free two-pass statistics: simd_sum partials through threadgroup memory,
// optional affine weights selected by a function constant.
#include <metal_stdlib>
using namespace metal;

constant bool has_affine [[function_constant(0)]];

template <typename T>
[[kernel]] void layer_norm(device const T* x [[buffer(0)]],
                           device const T* w [[buffer(1)]],
                           device const T* b [[buffer(2)]],
                           device T* y [[buffer(3)]],
                           constant uint& n [[buffer(4)]],
                           constant float& eps [[buffer(5)]],
                           uint row [[threadgroup_position_in_grid]],
                           uint lid [[thread_index_in_threadgroup]],
                           uint lane [[thread_index_in_simdgroup]],
                           uint sg [[simdgroup_index_in_threadgroup]],
                           uint ntg [[threads_per_threadgroup]]) {
  threadgroup float sums[32];
  device const T* xr = x + size_t(row) * n;
  float s = 0.0f;
  for (uint i = lid; i < n; i += ntg) s += float(xr[i]);
  s = simd_sum(s);
  if (lane == 0) sums[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float mean = simd_sum(lane < (ntg + 31) / 32 ? sums[lane] : 0.0f) / float(n);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float v = 0.0f;
  for (uint i = lid; i < n; i += ntg) { float d = float(xr[i]) - mean; v += d * d; }
  v = simd_sum(v);
  if (lane == 0) sums[sg] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float var = simd_sum(lane < (ntg + 31) / 32 ? sums[lane] : 0.0f) / float(n);
  float inv = metal::precise::rsqrt(var + eps);
  for (uint i = lid; i < n; i += ntg) {
    float o = (float(xr[i]) - mean) * inv;
    if (has_affine) o = o * float(w[i]) + float(b[i]);
    y[size_t(row) * n + i] = T(o);
  }
}
template [[host_name("layer_norm_float")]] [[kernel]] decltype(layer_norm<float>) layer_norm<float>;
template [[host_name("layer_norm_half")]] [[kernel]] decltype(layer_norm<half>) layer_norm<half>;
template [[host_name("layer_norm_bfloat")]] [[kernel]] decltype(layer_norm<bfloat>) layer_norm<bfloat>;
