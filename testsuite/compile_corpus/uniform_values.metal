// uniform<T> and make_uniform (MLX gemv's loop stride) plus metal::vec<T,N> in generic code.
#include <metal_uniform>
#include <metal_stdlib>
using namespace metal;

template <typename T, int N>
METAL_FUNC T horizontal_sum(metal::vec<T, N> v) {
  T s = T(0);
  for (int i = 0; i < N; ++i) s += v[i];
  return s;
}

kernel void gemv_rows(device const float4* mat [[buffer(0)]],
                      device const float4* vec_in [[buffer(1)]],
                      device float* out [[buffer(2)]],
                      constant int& blocks [[buffer(3)]],
                      uint row [[threadgroup_position_in_grid]],
                      uint lane [[thread_index_in_simdgroup]]) {
  constexpr const uniform<int> loop_stride = make_uniform(32);
  const uniform<int> nblocks = make_uniform(blocks);
  float acc = 0.0f;
  for (int b = int(lane); b < nblocks; b += loop_stride) {
    metal::vec<float, 4> prod = mat[row * uint(blocks) + uint(b)] * vec_in[b];
    acc += horizontal_sum(prod);
  }
  acc = simd_sum(acc);
  if (lane == 0) out[row] = acc + horizontal_sum(metal::vec<int, 2>(1, 2)) * 0;
}
