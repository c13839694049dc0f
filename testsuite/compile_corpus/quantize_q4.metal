// 4-bit block quantization: per-block absmax via simd_max, nibble packing with insert_bits.
#include <metal_stdlib>
using namespace metal;

struct block_q4_0 {
  half d;
  uchar qs[16];
};

kernel void quantize_q4_0(device const float* x [[buffer(0)]],
                          device block_q4_0* blocks [[buffer(1)]],
                          uint b [[threadgroup_position_in_grid]],
                          ushort lane [[thread_index_in_simdgroup]]) {
  float v = x[b * 32 + lane];
  float amax = simd_max(abs(v));
  float d = amax / 7.0f;
  float id = d != 0.0f ? 1.0f / d : 0.0f;
  uint q = uint(clamp(rint(v * id) + 8.0f, 0.0f, 15.0f));
  uint hi = simd_shuffle_down(q, 16);
  if (lane < 16) blocks[b].qs[lane] = uchar(insert_bits(q, hi, 4, 4));
  if (lane == 0) blocks[b].d = half(d);
}
