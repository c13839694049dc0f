// Integer min/max/clamp/abs and the three-way variants over signed and unsigned lanes.
#include <metal_stdlib>
using namespace metal;

kernel void int_clamp3(device const int4* a [[buffer(0)]],
                       device const int4* b [[buffer(1)]],
                       device int4* out [[buffer(2)]],
                       constant int2& range [[buffer(3)]],
                       uint i [[thread_position_in_grid]]) {
  int4 x = a[i], y = b[i];
  int4 lo = min(x, y), hi = max(x, y);
  int4 c = clamp(x, range.x, range.y);
  int4 m3 = min3(x, y, c) + max3(x, y, c) + median3(x, y, c);
  out[i] = abs(lo - hi) + m3;
}

kernel void uint_minmax(device const uint* a [[buffer(0)]], device uint* out [[buffer(1)]],
                        uint i [[thread_position_in_grid]]) {
  uint x = a[i];
  out[i] = clamp(max(x, 3u), 0u, 100u) + min(x, 7u) + uint(abs(int(x) - 50));
  long lx = long(x) - 1000;
  out[i] += uint(abs(lx) + max(lx, 0l) + min(lx, long(5)));
}
