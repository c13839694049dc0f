// ggml-style dequantization into half4x4/float4x4 used as 16-element containers, with
// whole-matrix conversions between element types.
#include <metal_stdlib>
using namespace metal;

typedef struct {
  half d;
  uchar qs[8];
} block_q4;

template <typename type4x4>
void dequantize_q4(device const block_q4* xb, short il, thread type4x4& reg) {
  const float d = xb->d;
  for (int i = 0; i < 16; ++i) {
    uchar q = xb->qs[(i / 2) % 8];
    uchar nib = (i & 1) ? (q >> 4) : (q & 0xF);
    reg[i / 4][i % 4] = (nib - 8) * d + float(il) * 0.0f;
  }
}

kernel void kernel_get_rows_q4(device const block_q4* src [[buffer(0)]],
                               device float4x4* dst [[buffer(1)]],
                               device half4x4* dsth [[buffer(2)]],
                               uint i [[thread_position_in_grid]]) {
  half4x4 h;
  dequantize_q4(src + i, 0, h);
  float4x4 f;
  dequantize_q4(src + i, 1, f);
  dst[i] = (float4x4)(h) + f;
  dsth[i] = (half4x4)(f);
}
