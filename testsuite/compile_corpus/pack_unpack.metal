// Normalized pack/unpack: RGBA8 and RGB565 pixels, 10:10:10:2 normals, 16-bit pairs.
#include <metal_pack>
#include <metal_stdlib>
using namespace metal;

kernel void repack_pixels(device const uint* rgba8 [[buffer(0)]],
                          device const ushort* rgb565 [[buffer(1)]],
                          device uint* out [[buffer(2)]],
                          uint i [[thread_position_in_grid]]) {
  uint p = rgba8[i];
  float4 u = unpack_unorm4x8_to_float(p);
  half4 uh = unpack_unorm4x8_to_half(p);
  float4 s = unpack_snorm4x8_to_float(p);
  half4 sh = unpack_snorm4x8_to_half(p);
  float4 srgb = unpack_unorm4x8_srgb_to_float(p);
  half4 srgbh = unpack_unorm4x8_srgb_to_half(p);
  float2 u16 = unpack_unorm2x16_to_float(p);
  half2 u16h = unpack_unorm2x16_to_half(p);
  float2 s16 = unpack_snorm2x16_to_float(p);
  half2 s16h = unpack_snorm2x16_to_half(p);
  float4 n10 = unpack_unorm10a2_to_float(p);
  half4 n10h = unpack_unorm10a2_to_half(p);
  float4 sn10 = unpack_snorm10a2_to_float(p);
  half4 sn10h = unpack_snorm10a2_to_half(p);
  float3 c565 = unpack_unorm565_to_float(rgb565[i]);
  half3 c565h = unpack_unorm565_to_half(rgb565[i]);
  uint k = i * 16;
  out[k + 0] = pack_float_to_unorm4x8(u * 0.5f);
  out[k + 1] = pack_float_to_snorm4x8(s);
  out[k + 2] = pack_half_to_unorm4x8(uh);
  out[k + 3] = pack_half_to_snorm4x8(sh);
  out[k + 4] = pack_float_to_srgb_unorm4x8(srgb);
  out[k + 5] = pack_half_to_srgb_unorm4x8(srgbh);
  out[k + 6] = pack_float_to_unorm2x16(u16);
  out[k + 7] = pack_float_to_snorm2x16(s16);
  out[k + 8] = pack_half_to_unorm2x16(u16h);
  out[k + 9] = pack_half_to_snorm2x16(s16h);
  out[k + 10] = pack_float_to_unorm10a2(n10);
  out[k + 11] = pack_half_to_unorm10a2(n10h);
  out[k + 12] = pack_float_to_unorm565(c565);
  out[k + 13] = pack_half_to_unorm565(c565h);
  out[k + 14] = pack_float_to_snorm10a2(sn10);
  out[k + 15] = pack_half_to_snorm10a2(sn10h);
}
