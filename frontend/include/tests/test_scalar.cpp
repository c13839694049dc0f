// half per-operation rounding, bfloat rounding, numeric_limits, math and integer functions.
#include "mslsim_test.h"
using namespace metal;

constexpr bfloat kOne = bfloat(1.0f);  // must be a constant expression
static_assert(kOne.__bits == 0x3f80, "constexpr bfloat");
static_assert(numeric_limits<half>::max() == 65504.0f16, "half max");
static_assert(numeric_limits<int>::max() == 2147483647 && numeric_limits<uint>::min() == 0, "int limits");

static unsigned short hbits(half h) { return __builtin_bit_cast(unsigned short, h); }
template <class A> volatile A opaque(A a) { return a; }  // keeps the optimiser from folding

extern "C" int main() {  // extern "C": -ffreestanding does not special-case main
  // half: every operation rounds. 2048 + 1 = 2049 is not representable (ties to even -> 2048), so
  // (2048 + 1) + 1 is 2048 per-operation but 2050 if the sum were kept in float.
  half a = opaque<half>(2048.0f16), one = opaque<half>(1.0f16);
  half r = a + one + one;
  CHECK(float(r) == 2048.0f);
  half p = opaque<half>(0.1f16) * opaque<half>(3.0f16);  // 0.0999755859375*3 = 0.2999267578125 -> 0.2998046875
  CHECK(hbits(p) == 0x34cc);
  CHECK(hbits(half(1.0f) / half(3.0f)) == 0x3555);
  // half math rounds once from the float result
  CHECK(hbits(metal::exp(half(1.0f))) == hbits(half(__builtin_expf(1.0f))));
  CHECK(hbits(metal::sqrt(half(2.0f))) == 0x3da8);
  // bfloat: round to nearest even, NaN stays NaN
  CHECK(bfloat(1.0f + 0x1p-8f).__bits == 0x3f80);           // tie -> even (down)
  CHECK(bfloat(1.0f + 3 * 0x1p-8f).__bits == 0x3f82);       // tie -> even (up)
  CHECK(bfloat(1.0f + 0x1p-8f + 0x1p-20f).__bits == 0x3f81); // above the tie
  CHECK(bfloat(__builtin_nanf("")).__bits == 0x7fc0);
  CHECK(bfloat(__builtin_bit_cast(float, 0x7f800001u)).__bits != 0x7f80);  // a NaN payload in low bits stays NaN
  CHECK(float(bfloat(3.0f) * bfloat(1.0f / 3.0f)) == 1.0f);
  bfloat bsum = bfloat(256.0f) + bfloat(1.0f);  // 257 -> 256 (8 significant bits)
  CHECK(float(bsum) == 256.0f);
  bfloat bi = bfloat(2.0f) * 3;  // int operand keeps bfloat
  CHECK(float(bi) == 6.0f);
  float bf = bfloat(2.0f) * 0.5f;  // float operand: the bfloat converts to float
  CHECK(bf == 1.0f);
  CHECK(float(-bfloat(2.0f)) == -2.0f && bfloat(2.0f) > bfloat(1.0f));
  CHECK(float(metal::exp(bfloat(0.0f))) == 1.0f);
  CHECK(float(numeric_limits<bfloat>::max()) == 0x1.fep127f);
  CHECK(isinf(numeric_limits<bfloat>::infinity()) && isnan(numeric_limits<half>::quiet_NaN()));
  CHECK(float(numeric_limits<half>::lowest()) == -65504.0f);
  // min/max mixed scalars
  float x = opaque(-3.0f);
  CHECK(max(x, 0) == 0.0f && min(x, 0.0f) == -3.0f && max(2u, 3u) == 3u);
  half hm = max(half(1.0f), 2);
  CHECK(float(hm) == 2.0f);
  CHECK(fmax(x, __builtin_nanf("")) == x && clamp(5, 0, 3) == 3 && clamp(x, -1.0f, 1.0f) == -1.0f);
  CHECK(fract(-0.25f) == 0.75f && round(2.5f) == 3.0f && rint(2.5f) == 2.0f && sign(-0.0f) == 0.0f);
  CHECK(fmod(5.5f, 2.0f) == 1.5f && step(1.0f, 2.0f) == 1.0f && mix(0.0f, 10.0f, 0.25f) == 2.5f);
  CHECK(all(abs(float2(-1, 2)) == float2(1, 2)) && abs(-5) == 5 && metal::abs(half(-1.5f)) == 1.5f16);
  CHECK(all(max(float3(1, 5, 3), 2.0f) == float3(2, 5, 3)));
  CHECK(float(nextafter(half(1.0f), half(2.0f))) == 1.0f + 0x1p-10f);
  CHECK(nextafter(1.0f, 0.0f) == 1.0f - 0x1p-24f);
  CHECK(signbit(-0.0f) && !isfinite(INFINITY) && isnan(NAN) && all(isnan(float2(NAN, 1)) == bool2(true, false)));
  float ip;
  CHECK(modf(2.75f, ip) == 0.75f && ip == 2.0f);
  int e;
  CHECK(frexp(8.0f, e) == 0.5f && e == 4 && ldexp(0.5f, 4) == 8.0f);
  CHECK(dot(float3(1, 2, 3), float3(4, 5, 6)) == 32.0f && length(float2(3, 4)) == 5.0f);
  CHECK(all(cross(float3(1, 0, 0), float3(0, 1, 0)) == float3(0, 0, 1)));
  CHECK(all(normalize(float2(0, 2)) == float2(0, 1)) && distance(float2(0), float2(3, 4)) == 5.0f);
  CHECK(precise::sqrt(4.0f) == 2.0f && fast::exp(0.0f) == 1.0f && rsqrt(4.0f) == 0.5f);
  // integer functions
  CHECK(clz(1u) == 31u && clz(0u) == 32u && clz(uchar(1)) == 7 && ctz(8) == 3 && ctz(ushort(0)) == 16);
  CHECK(popcount(0xf0f0u) == 8u && all(popcount(uint2(1, 3)) == uint2(1, 2)));
  CHECK(mulhi(0x80000000u, 4u) == 2u && mulhi(-1, 1) == -1);
  CHECK(absdiff(-5, 5) == 10u && addsat(uchar(250), uchar(10)) == 255 && subsat(0u, 1u) == 0u);
  CHECK(addsat(2147483647, 1) == 2147483647 && subsat(-2147483647 - 1, 1) == -2147483647 - 1);
  CHECK(extract_bits(0xf0u, 4u, 4u) == 0xfu && extract_bits(int(0xf0), 4u, 4u) == -1);
  CHECK(insert_bits(0u, 0x3u, 4u, 2u) == 0x30u && rotate(0x80000001u, 1u) == 3u);
  CHECK(reverse_bits(1u) == 0x80000000u && hadd(7, 9) == 8 && rhadd(7, 8) == 8);
  CHECK(max3(1, 7, 3) == 7 && median3(1, 7, 3) == 3 && fmedian3(1.0f, 5.0f, 3.0f) == 3.0f);
  // array
  metal::array<int, 3> arr = {{1, 2, 3}};
  CHECK(arr.size() == 3 && arr[1] == 2);
  return TEST_RESULT();
}
