// as_type bit reinterpretation between same-size scalars and vectors; MLX-style 64-bit shuffle
// through uint2, and sign-magnitude float ordering keys.
#include <metal_stdlib>
using namespace metal;

METAL_FUNC ulong shuffle_down_u64(ulong v, ushort delta) {
  uint2 parts = as_type<uint2>(v);
  parts.x = simd_shuffle_down(parts.x, delta);
  parts.y = simd_shuffle_down(parts.y, delta);
  return as_type<ulong>(parts);
}

kernel void bit_views(device const float4* in [[buffer(0)]],
                      device uint4* out [[buffer(1)]],
                      device ulong* out64 [[buffer(2)]],
                      uint i [[thread_position_in_grid]]) {
  float4 v = in[i];
  uint4 bits = as_type<uint4>(v);
  half2 h = as_type<half2>(bits.x);
  ushort2 hs = as_type<ushort2>(h);
  float3 f3 = as_type<float3>(v);
  int f = as_type<int>(v.x);
  uint key = (bits.y & 0x80000000u) ? ~bits.y : bits.y | 0x80000000u;
  bfloat2 bb = as_type<bfloat2>(bits.z);
  ushort bfbits = as_type<ushort>(bb.x);
  out[i] = bits + uint4(hs.x, key, uint(f), bfbits) + uint4(as_type<uint>(f3.x));
  out64[i] = shuffle_down_u64(as_type<ulong>(uint2(bits.xy)), 1) + as_type<ulong>(float2(v.zw));
}
