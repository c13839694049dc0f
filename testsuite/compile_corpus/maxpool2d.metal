// 2x2 max pooling over an HxW float image with ushort2 grid coordinates.
#include <metal_stdlib>
using namespace metal;

kernel void maxpool2x2(device const float* in [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       constant ushort2& in_size [[buffer(2)]],
                       ushort2 p [[thread_position_in_grid]]) {
  ushort2 o = p * ushort2(2);
  if (o.x + 1 >= in_size.x || o.y + 1 >= in_size.y) return;
  uint w = in_size.x;
  float a = in[o.y * w + o.x], b = in[o.y * w + o.x + 1];
  float c = in[(o.y + 1) * w + o.x], d = in[(o.y + 1) * w + o.x + 1];
  out[p.y * (w / 2) + p.x] = fmax(fmax(a, b), fmax(c, d));
}
