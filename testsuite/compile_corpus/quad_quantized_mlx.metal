// MLX quantized-kernel pattern: quad_sum over the 4 lanes of a quad that share an output,
// indexed with [[quadgroup_index_in_threadgroup]] / [[thread_index_in_quadgroup]].
#include <metal_stdlib>
using namespace metal;

kernel void qvm_quad(device const uint* wq [[buffer(0)]],
                     device const float* x [[buffer(1)]],
                     device float* y [[buffer(2)]],
                     constant uint& k [[buffer(3)]],
                     uint quad_gid [[quadgroup_index_in_threadgroup]],
                     uint quad_lid [[thread_index_in_quadgroup]],
                     uint tg [[threadgroup_position_in_grid]]) {
  uint out = tg * 8 + quad_gid;
  float acc = 0.0f;
  for (uint i = quad_lid; i < k / 8; i += 4) {
    uint packed = wq[out * (k / 8) + i];
    for (uint j = 0; j < 8; ++j) acc += float(extract_bits(packed, j * 4, 4)) * x[i * 8 + j];
  }
  acc = quad_sum(acc);
  if (quad_lid == 0) y[out] = acc;
}
