// Sobel edge magnitude on a grayscale half image, with length() of the gradient and saturate().
#include <metal_stdlib>
using namespace metal;

kernel void sobel(device const half* img [[buffer(0)]],
                  device half* edges [[buffer(1)]],
                  constant uint2& size [[buffer(2)]],
                  uint2 p [[thread_position_in_grid]]) {
  if (p.x == 0 || p.y == 0 || p.x + 1 >= size.x || p.y + 1 >= size.y) return;
  auto at = [&](int dx, int dy) { return float(img[(p.y + dy) * size.x + p.x + dx]); };
  float gx = -at(-1, -1) - 2 * at(-1, 0) - at(-1, 1) + at(1, -1) + 2 * at(1, 0) + at(1, 1);
  float gy = -at(-1, -1) - 2 * at(0, -1) - at(1, -1) + at(-1, 1) + 2 * at(0, 1) + at(1, 1);
  edges[p.y * size.x + p.x] = half(saturate(length(float2(gx, gy))));
}
