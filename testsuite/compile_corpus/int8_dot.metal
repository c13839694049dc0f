// int8 dot products: char4 x char4 accumulated in int, scaled by half block scales (q8 GEMV).
#include <metal_stdlib>
using namespace metal;

METAL_FUNC int dot_i8(char4 a, char4 b) {
  int4 p = int4(a) * int4(b);
  return p.x + p.y + p.z + p.w;
}

kernel void q8_gemv(device const char4* w [[buffer(0)]],
                    device const char4* x [[buffer(1)]],
                    device const half* scales [[buffer(2)]],
                    device float* y [[buffer(3)]],
                    constant uint& k4 [[buffer(4)]],
                    uint row [[threadgroup_position_in_grid]],
                    uint lane [[thread_index_in_simdgroup]]) {
  int acc = 0;
  for (uint c = lane; c < k4; c += 32) acc += dot_i8(w[row * k4 + c], x[c]);
  acc = simd_sum(acc);
  if (lane == 0) y[row] = float(acc) * float(scales[row]);
}
