// Every scalar element type as 2/3/4-vectors: construction, arithmetic, comparisons to bool vectors.
#include <metal_stdlib>
using namespace metal;

kernel void all_vector_types(device uint* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  bool2 b2 = bool2(true, false); bool3 b3 = bool3(b2, true); bool4 b4 = bool4(b3, false);
  char2 c2 = char2(1, -2); char3 c3 = char3(c2, 3); char4 c4 = char4(c3, -4);
  uchar2 uc2 = uchar2(1, 2); uchar3 uc3 = uchar3(uc2, 3); uchar4 uc4 = uchar4(uc3, 4);
  short2 s2 = short2(5); short3 s3 = short3(s2, 6); short4 s4 = short4(s3, 7);
  ushort2 us2 = ushort2(8); ushort3 us3 = ushort3(us2, 9); ushort4 us4 = ushort4(us3, 10);
  int2 i2 = int2(11); int3 i3 = int3(i2, 12); int4 i4 = int4(i3, 13);
  uint2 u2 = uint2(14); uint3 u3 = uint3(u2, 15); uint4 u4 = uint4(u3, 16);
  long2 l2 = long2(17); long3 l3 = long3(l2, 18); long4 l4 = long4(l3, 19);
  ulong2 ul2 = ulong2(20); ulong3 ul3 = ulong3(ul2, 21); ulong4 ul4 = ulong4(ul3, 22);
  half2 h2 = half2(1.0h); half3 h3 = half3(h2, 2.0h); half4 h4 = half4(h3, 3.0h);
  bfloat2 bf2 = bfloat2(bfloat(1.0f)); bfloat3 bf3 = bfloat3(bf2, bfloat(2.0f)); bfloat4 bf4 = bfloat4(bf3, bfloat(3.0f));
  float2 f2 = float2(1.0f); float3 f3 = float3(f2, 2.0f); float4 f4 = float4(f3, 3.0f);
  bool4 cmp = (i4 > int4(12)) && (f4 != float4(2.0f)) && b4;
  bool3 cmp3 = u3 == uint3(14, 14, 15);
  bool2 cmp2 = l2 <= long2(17) || ul2 >= ulong2(21);
  uint acc = uint(c4.w + uc4.w + s4.w + us4.w + i4.w + u4.w) + uint(l4.w + long(ul4.w));
  acc += uint(h4.w + float(bf4.w) + f4.w) + (all(cmp3) ? 1 : 0) + (any(cmp2) ? 2 : 0) + (any(cmp) ? 4 : 0);
  acc += uint(b2.x) + uint(c3.z) + uint(uc3.z) + uint(s3.z) + uint(us3.z) + uint(i3.z) + uint(l3.z) + uint(ul3.z);
  acc += uint(h2.x) + uint(float(bf3.x)) + uint(f2.y);
  out[i] = acc;
}
