// <metal_pack>: pack/unpack between normalized integer encodings and float/half vectors (MSL §6.14,
// conversion rules §8.7.1). Component x is in the least significant bits (as GLSL's packUnorm4x8,
// which translators map onto these functions). unorm: c / (2^n - 1); snorm: max(-1, c / (2^(n-1) - 1));
// float -> unorm/snorm clamps, scales and rounds to nearest even. sRGB variants apply the sRGB
// transfer function to x, y, z (w stays linear). 565 puts x in bits 0-4, y in 5-10, z in 11-15
// (unverified against hardware).
#pragma once
#include "math.h"

namespace metal {
METAL_FUNC float __unorm_to_f(uint c, uint bits) { return float(c) / float((1u << bits) - 1u); }
METAL_FUNC float __snorm_to_f(uint c, uint bits) {
  int s = int(c << (32 - bits)) >> (32 - bits);  // sign-extend
  return __builtin_fmaxf(-1.0f, float(s) / float((1 << (bits - 1)) - 1));
}
METAL_FUNC uint __f_to_unorm(float f, uint bits) {
  f = f != f ? 0.0f : __builtin_fminf(__builtin_fmaxf(f, 0.0f), 1.0f);
  return uint(__builtin_rintf(f * float((1u << bits) - 1u)));
}
METAL_FUNC uint __f_to_snorm(float f, uint bits) {
  f = f != f ? 0.0f : __builtin_fminf(__builtin_fmaxf(f, -1.0f), 1.0f);
  int s = int(__builtin_rintf(f * float((1 << (bits - 1)) - 1)));
  return uint(s) & ((1u << bits) - 1u);
}
METAL_FUNC float __srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : __builtin_powf((c + 0.055f) / 1.055f, 2.4f);
}
METAL_FUNC float __linear_to_srgb(float c) {
  c = c != c ? 0.0f : __builtin_fminf(__builtin_fmaxf(c, 0.0f), 1.0f);
  return c <= 0.0031308f ? c * 12.92f : 1.055f * __builtin_powf(c, 1.0f / 2.4f) - 0.055f;
}

// All public functions are templates whose vector types depend on the template parameter, so that
// including this header instantiates nothing (each vec<T,N> costs parse time).
#define __MSLSIM_FV(N) vec<typename __dep<X, float>::type, N>
#define __MSLSIM_HV(N) vec<typename __dep<X, half>::type, N>

// ---------------------------------------------------------------- unpack
template <class X> METAL_FUNC __MSLSIM_FV(4) unpack_unorm4x8_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(4)(__unorm_to_f(x & 255u, 8), __unorm_to_f((x >> 8) & 255u, 8),
                        __unorm_to_f((x >> 16) & 255u, 8), __unorm_to_f(x >> 24, 8));
}
template <class X> METAL_FUNC __MSLSIM_FV(4) unpack_snorm4x8_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(4)(__snorm_to_f(x & 255u, 8), __snorm_to_f((x >> 8) & 255u, 8),
                        __snorm_to_f((x >> 16) & 255u, 8), __snorm_to_f(x >> 24, 8));
}
template <class X> METAL_FUNC __MSLSIM_FV(4) unpack_unorm4x8_srgb_to_float(X x_) {
  __MSLSIM_FV(4) v = unpack_unorm4x8_to_float(x_);
  return __MSLSIM_FV(4)(__srgb_to_linear(v.x), __srgb_to_linear(v.y), __srgb_to_linear(v.z), v.w);
}
template <class X> METAL_FUNC __MSLSIM_FV(2) unpack_unorm2x16_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(2)(__unorm_to_f(x & 0xffffu, 16), __unorm_to_f(x >> 16, 16));
}
template <class X> METAL_FUNC __MSLSIM_FV(2) unpack_snorm2x16_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(2)(__snorm_to_f(x & 0xffffu, 16), __snorm_to_f(x >> 16, 16));
}
template <class X> METAL_FUNC __MSLSIM_FV(4) unpack_unorm10a2_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(4)(__unorm_to_f(x & 1023u, 10), __unorm_to_f((x >> 10) & 1023u, 10),
                        __unorm_to_f((x >> 20) & 1023u, 10), __unorm_to_f(x >> 30, 2));
}
template <class X> METAL_FUNC __MSLSIM_FV(4) unpack_snorm10a2_to_float(X x_) {
  uint x = uint(x_);
  return __MSLSIM_FV(4)(__snorm_to_f(x & 1023u, 10), __snorm_to_f((x >> 10) & 1023u, 10),
                        __snorm_to_f((x >> 20) & 1023u, 10), __snorm_to_f(x >> 30, 2));
}
template <class X> METAL_FUNC __MSLSIM_FV(3) unpack_unorm565_to_float(X x_) {
  uint x = uint(ushort(x_));
  return __MSLSIM_FV(3)(__unorm_to_f(x & 31u, 5), __unorm_to_f((x >> 5) & 63u, 6), __unorm_to_f(x >> 11, 5));
}
#define __MSLSIM_UNPACK_H(name, N) \
  template <class X> METAL_FUNC __MSLSIM_HV(N) name##_to_half(X x) { return __MSLSIM_HV(N)(name##_to_float(x)); }
__MSLSIM_UNPACK_H(unpack_unorm4x8, 4) __MSLSIM_UNPACK_H(unpack_snorm4x8, 4) __MSLSIM_UNPACK_H(unpack_unorm4x8_srgb, 4)
__MSLSIM_UNPACK_H(unpack_unorm2x16, 2) __MSLSIM_UNPACK_H(unpack_snorm2x16, 2) __MSLSIM_UNPACK_H(unpack_unorm10a2, 4)
__MSLSIM_UNPACK_H(unpack_snorm10a2, 4) __MSLSIM_UNPACK_H(unpack_unorm565, 3)
#undef __MSLSIM_UNPACK_H

// ---------------------------------------------------------------- pack
template <class X> METAL_FUNC uint pack_float_to_unorm4x8(const X& x) {
  __MSLSIM_FV(4) v(x);
  return __f_to_unorm(v.x, 8) | __f_to_unorm(v.y, 8) << 8 | __f_to_unorm(v.z, 8) << 16 | __f_to_unorm(v.w, 8) << 24;
}
template <class X> METAL_FUNC uint pack_float_to_snorm4x8(const X& x) {
  __MSLSIM_FV(4) v(x);
  return __f_to_snorm(v.x, 8) | __f_to_snorm(v.y, 8) << 8 | __f_to_snorm(v.z, 8) << 16 | __f_to_snorm(v.w, 8) << 24;
}
template <class X> METAL_FUNC uint pack_float_to_srgb_unorm4x8(const X& x) {
  __MSLSIM_FV(4) v(x);
  return pack_float_to_unorm4x8(__MSLSIM_FV(4)(__linear_to_srgb(v.x), __linear_to_srgb(v.y), __linear_to_srgb(v.z), v.w));
}
template <class X> METAL_FUNC uint pack_float_to_unorm2x16(const X& x) {
  __MSLSIM_FV(2) v(x);
  return __f_to_unorm(v.x, 16) | __f_to_unorm(v.y, 16) << 16;
}
template <class X> METAL_FUNC uint pack_float_to_snorm2x16(const X& x) {
  __MSLSIM_FV(2) v(x);
  return __f_to_snorm(v.x, 16) | __f_to_snorm(v.y, 16) << 16;
}
template <class X> METAL_FUNC uint pack_float_to_unorm10a2(const X& x) {
  __MSLSIM_FV(4) v(x);
  return __f_to_unorm(v.x, 10) | __f_to_unorm(v.y, 10) << 10 | __f_to_unorm(v.z, 10) << 20 | __f_to_unorm(v.w, 2) << 30;
}
template <class X> METAL_FUNC uint pack_float_to_snorm10a2(const X& x) {
  __MSLSIM_FV(4) v(x);
  return __f_to_snorm(v.x, 10) | __f_to_snorm(v.y, 10) << 10 | __f_to_snorm(v.z, 10) << 20 | __f_to_snorm(v.w, 2) << 30;
}
template <class X> METAL_FUNC ushort pack_float_to_unorm565(const X& x) {
  __MSLSIM_FV(3) v(x);
  return ushort(__f_to_unorm(v.x, 5) | __f_to_unorm(v.y, 6) << 5 | __f_to_unorm(v.z, 5) << 11);
}
// The half variants convert to float (exact) and share the float code.
#define __MSLSIM_PACK_H(name, R, N) \
  template <class X> METAL_FUNC R pack_half_to_##name(const X& x) { return pack_float_to_##name(__MSLSIM_FV(N)(__MSLSIM_HV(N)(x))); }
__MSLSIM_PACK_H(unorm4x8, uint, 4) __MSLSIM_PACK_H(snorm4x8, uint, 4) __MSLSIM_PACK_H(srgb_unorm4x8, uint, 4)
__MSLSIM_PACK_H(unorm2x16, uint, 2) __MSLSIM_PACK_H(snorm2x16, uint, 2) __MSLSIM_PACK_H(unorm10a2, uint, 4)
__MSLSIM_PACK_H(snorm10a2, uint, 4) __MSLSIM_PACK_H(unorm565, ushort, 3)
#undef __MSLSIM_PACK_H
#undef __MSLSIM_FV
#undef __MSLSIM_HV
}  // namespace metal
