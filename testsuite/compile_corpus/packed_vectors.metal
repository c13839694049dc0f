// Packed vector types: q8 dequantization from packed_char4, packed float/half I/O, packed_vec.
#include <metal_stdlib>
using namespace metal;

kernel void dequant_q8(device const packed_char4* q [[buffer(0)]],
                       device const half* scales [[buffer(1)]],
                       device packed_float4* out [[buffer(2)]],
                       uint i [[thread_position_in_grid]]) {
  packed_char4 p = q[i];
  float4 v = float4(char4(p)) * float(scales[i / 8]);
  out[i] = packed_float4(v);
  out[i].x += float(p[0]);
  out[i].yz = out[i].zy;
}

kernel void packed_all(device packed_uchar2* a [[buffer(0)]], device packed_short3* b [[buffer(1)]],
                       device packed_int4* c [[buffer(2)]], device packed_uint2* d [[buffer(3)]],
                       device packed_ushort4* e [[buffer(4)]], device packed_half2* f [[buffer(5)]],
                       device packed_long2* g [[buffer(6)]], device packed_ulong3* h [[buffer(7)]],
                       device packed_bfloat4* k [[buffer(8)]], device packed_char2* m [[buffer(9)]],
                       device packed_vec<float, 3>* n [[buffer(10)]], device packed_float2* o [[buffer(11)]],
                       uint i [[thread_position_in_grid]]) {
  a[i] = packed_uchar2(uchar2(a[i]) + uchar2(1));
  b[i] = packed_short3(short3(b[i]) * short3(2));
  c[i] = c[i] + c[i];
  d[i] = packed_uint2(uint2(d[i]).yx);
  e[i] = packed_ushort4(ushort4(e[i]) + ushort4(1));
  f[i] = packed_half2(half2(f[i]) * 2.0h);
  g[i] = packed_long2(long2(g[i]) - long2(1));
  h[i] = packed_ulong3(ulong3(h[i]) + ulong3(1));
  k[i] = packed_bfloat4(bfloat4(k[i]));
  m[i] = packed_char2(char2(m[i]) * char2(3));
  n[i] = packed_vec<float, 3>(float3(n[i]) + 1.0f);
  o[i] = packed_float2(float2(o[i]) * 0.5f);
}
