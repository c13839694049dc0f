// Saturating and widening integer arithmetic for 8- and 16-bit image-like data.
#include <metal_stdlib>
using namespace metal;

kernel void saturate_mix(device const uchar4* a [[buffer(0)]],
                         device const uchar4* b [[buffer(1)]],
                         device uchar4* sum [[buffer(2)]],
                         device uchar4* diff [[buffer(3)]],
                         device uchar4* avg [[buffer(4)]],
                         uint i [[thread_position_in_grid]]) {
  uchar4 x = a[i], y = b[i];
  sum[i] = addsat(x, y);
  diff[i] = subsat(x, y) | absdiff(x, y);
  avg[i] = hadd(x, y) ^ rhadd(x, y);
}

kernel void wide_mul(device const int* a [[buffer(0)]],
                     device const int* b [[buffer(1)]],
                     device int* hi [[buffer(2)]],
                     device int* m24 [[buffer(3)]],
                     uint i [[thread_position_in_grid]]) {
  int x = a[i], y = b[i];
  hi[i] = mulhi(x, y) + madhi(x, y, 1);
  m24[i] = mul24(x & 0xffff, y & 0xffff) + mad24(x & 0xff, y & 0xff, 3);
  m24[i] = madsat(m24[i], 2, 5);
  short s = short(x);
  hi[i] += int(addsat(s, short(30000))) + int(subsat(s, short(-30000)));
}
