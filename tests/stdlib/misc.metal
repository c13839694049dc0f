// pack/unpack, numeric_limits, type traits, os_log and <simd/simd.h> (driven by test_stdlib.py).
#include <metal_stdlib>
#include <metal_pack>
#include <metal_logging>
#include <simd/simd.h>
using namespace metal;

#if !defined(ONLY) || defined(K_unpack)
// One packed word per thread; 34 floats out per word:
// unorm4x8, snorm4x8, unorm4x8_srgb, unorm2x16, snorm2x16, unorm10a2, snorm10a2 (float),
// unorm565 of the low 16 bits (float), and unorm4x8 / snorm2x16 via the half variants.
kernel void unpack(device const uint* in [[buffer(0)]], device float* out [[buffer(1)]],
                   uint tid [[thread_position_in_grid]]) {
  uint x = in[tid];
  device float* o = out + 34 * tid;
  float4 a = unpack_unorm4x8_to_float(x), b = unpack_snorm4x8_to_float(x), c = unpack_unorm4x8_srgb_to_float(x);
  float2 d = unpack_unorm2x16_to_float(x), e = unpack_snorm2x16_to_float(x);
  float4 f = unpack_unorm10a2_to_float(x), g = unpack_snorm10a2_to_float(x);
  float3 h = unpack_unorm565_to_float(ushort(x & 0xffffu));
  half4 ha = unpack_unorm4x8_to_half(x);
  half2 he = unpack_snorm2x16_to_half(x);
  for (int i = 0; i < 4; ++i) { o[i] = a[i]; o[4 + i] = b[i]; o[8 + i] = c[i]; o[16 + i] = f[i]; o[20 + i] = g[i]; }
  for (int i = 0; i < 2; ++i) { o[12 + i] = d[i]; o[14 + i] = e[i]; }
  for (int i = 0; i < 3; ++i) o[24 + i] = h[i];
  for (int i = 0; i < 4; ++i) o[27 + i] = float(ha[i]);
  for (int i = 0; i < 2; ++i) o[31 + i] = float(he[i]);
  o[33] = 0;
}
#endif

#if !defined(ONLY) || defined(K_pack)
// Four floats per thread; 11 words out: unorm4x8, snorm4x8, srgb_unorm4x8, unorm2x16 (xy),
// snorm2x16 (zw), unorm10a2, snorm10a2, unorm565 (xyz), and the half variants of unorm4x8,
// snorm2x16 (xy) and unorm565 (xyz).
kernel void pack(device const float4* in [[buffer(0)]], device uint* out [[buffer(1)]],
                 uint tid [[thread_position_in_grid]]) {
  float4 v = in[tid];
  device uint* o = out + 11 * tid;
  o[0] = pack_float_to_unorm4x8(v);
  o[1] = pack_float_to_snorm4x8(v);
  o[2] = pack_float_to_srgb_unorm4x8(v);
  o[3] = pack_float_to_unorm2x16(v.xy);
  o[4] = pack_float_to_snorm2x16(v.zw);
  o[5] = pack_float_to_unorm10a2(v);
  o[6] = pack_float_to_snorm10a2(v);
  o[7] = pack_float_to_unorm565(v.xyz);
  o[8] = pack_half_to_unorm4x8(half4(v));
  o[9] = pack_half_to_snorm2x16(half2(v.xy));
  o[10] = pack_half_to_unorm565(half3(v.xyz));
}
#endif

#if !defined(ONLY) || defined(K_limits)
template <class T> void lim(device float* o, thread uint& k) {
  typedef numeric_limits<T> L;
  o[k++] = float(L::min()); o[k++] = float(L::max()); o[k++] = float(L::lowest()); o[k++] = float(L::epsilon());
  o[k++] = L::digits; o[k++] = L::digits10; o[k++] = L::max_digits10;
  o[k++] = L::min_exponent; o[k++] = L::max_exponent; o[k++] = L::min_exponent10; o[k++] = L::max_exponent10;
  o[k++] = float(L::denorm_min()); o[k++] = float(L::infinity());
  o[k++] = isnan(float(L::quiet_NaN())) ? 1 : 0; o[k++] = isnan(float(L::signaling_NaN())) ? 1 : 0;
  o[k++] = float(L::round_error());
  o[k++] = L::is_signed + 2 * L::is_integer + 4 * L::is_exact + 8 * L::has_infinity + 16 * L::has_quiet_NaN +
           32 * L::has_signaling_NaN + 64 * L::is_bounded + 128 * L::is_modulo + 256 * L::is_iec559;
}
template <class T> void ilim(device float* o, thread uint& k) {
  typedef numeric_limits<T> L;
  o[k++] = float(L::min()); o[k++] = float(L::max()); o[k++] = float(L::lowest());
  o[k++] = L::digits; o[k++] = L::digits10;
  o[k++] = L::is_signed + 2 * L::is_integer + 4 * L::is_exact + 8 * L::has_infinity + 16 * L::has_quiet_NaN +
           32 * L::has_signaling_NaN + 64 * L::is_bounded + 128 * L::is_modulo + 256 * L::is_iec559;
}
struct S { int a; };
enum E : short { e0 };
union U { int a; float b; };
kernel void limits(device float* o [[buffer(0)]]) {
  uint k = 0;
  lim<float>(o, k); lim<half>(o, k); lim<bfloat>(o, k);
  ilim<char>(o, k); ilim<uchar>(o, k); ilim<short>(o, k); ilim<ushort>(o, k);
  ilim<int>(o, k); ilim<uint>(o, k); ilim<long>(o, k); ilim<ulong>(o, k);
  o[k++] = numeric_limits<const volatile int>::max();
  // Type traits: each line is a bit that must be 1.
  uint t = 0, n = 0;
#define T_(cond) t |= uint(bool(cond)) << n++;
  T_(is_volatile_v<volatile int> && !is_volatile_v<int>)
  T_(is_array_v<int[3]> && !is_array_v<int*>)
  T_(is_reference_v<int&> && is_lvalue_reference_v<int&> && is_rvalue_reference_v<int&&> && !is_reference_v<int>)
  T_((is_same_v<decay_t<const int&>, int> && is_same_v<decay_t<int[4]>, int*>))
  T_((conjunction_v<true_type, true_type> && !conjunction_v<true_type, false_type> && conjunction_v<>))
  T_((disjunction_v<false_type, true_type> && !disjunction_v<false_type> && negation_v<false_type>))
  T_((_disjunction<false_type, true_type>::value && !_conjunction<false_type, true_type>::value))
  T_((is_same_v<common_type_t<int, float>, float> && is_same_v<common_type_t<short, short>, short>))
  T_((is_same_v<add_pointer_t<int&>, int*> && is_same_v<add_lvalue_reference_t<int>, int&>))
  T_((rank_v<int[2][3]> == 2 && extent_v<int[2][3], 1> == 3 && alignment_of_v<float4> == 16))
  T_((is_same_v<underlying_type_t<E>, short> && is_union_v<U> && !is_union_v<S>))
  T_((is_same_v<make_index_sequence<3>, index_sequence<0, 1, 2>> && index_sequence_for<int, int>::size() == 2))
  T_((is_constructible_v<float4, float, float2, float> && is_default_constructible_v<S> && is_trivial_v<S>))
  T_((is_fundamental_v<bfloat> && is_fundamental_v<half> && !is_fundamental_v<S> && is_object_v<S>))
  T_((is_null_pointer_v<decltype(nullptr)> && is_function_v<void(int)> && is_standard_layout_v<S>))
  T_((is_assignable_v<int&, int> && !is_assignable_v<int, int> && is_trivially_destructible_v<float4>))
  // <metal_type_traits> as Apple's: the arithmetic traits see through vectors, cv dropped.
  T_((is_integral_v<int4> && is_integral_v<const volatile packed_uint2> && !is_integral_v<float2>))
  T_((is_floating_point_v<half2> && is_floating_point_v<const bfloat4> && !is_floating_point_v<int3>))
  T_((is_arithmetic_v<uchar3> && !is_arithmetic_v<float2x2> && is_scalar_v<half> && !is_scalar_v<float4>))
  T_((is_signed_v<short2> && is_signed_v<float4> && !is_signed_v<uint3> && is_unsigned_v<volatile ushort4>))
  T_((is_same_v<make_scalar_t<const half2>, half> && is_same_v<make_scalar_t<packed_float3>, float> &&
      is_same_v<make_scalar_t<int>, int>))
  T_((is_same_v<make_signed_t<const uint4>, int4> && is_same_v<make_unsigned_t<char2>, vec<uchar, 2>> &&
      is_same_v<make_unsigned_t<const short>, ushort> && is_same_v<make_signed_t<uchar>, signed char>))
#undef T_
  o[k++] = float(t);
  o[k++] = float(n);
  // os_log: accepted and dropped.
  os_log_default.log("value %d %f", 1, 2.0f);
  constexpr os_log logger("com.example", "test");
  logger.log_debug("%v4f", float4(1));
  logger.log_with_type(os_log_type_error, "x");
  o[k++] = __MSLSIM_HAVE_OS_LOG;
  // <simd/simd.h> names.
  simd_float4 sv = simd::float4(1, 2, 3, 4);
  simd::float4x4 sm = simd_float4x4(2.0f);
  o[k++] = (sm * sv).w;
  o[k++] = float(k + 1);  // count of values written, checked by the driver
}
#endif
