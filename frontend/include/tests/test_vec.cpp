// Vector layout, constructors, swizzles, conversions and operators.
#include "mslsim_test.h"
using namespace metal;

#define LAYOUT(T)                                                                              \
  static_assert(__is_trivially_copyable(vec<T, 2>) && __is_trivially_copyable(vec<T, 3>) &&   \
                __is_trivially_copyable(vec<T, 4>), #T " vectors trivially copyable");        \
  static_assert(sizeof(vec<T, 2>) == 2 * sizeof(T) && alignof(vec<T, 2>) == 2 * sizeof(T), #T "2"); \
  static_assert(sizeof(vec<T, 3>) == 4 * sizeof(T) && alignof(vec<T, 3>) == 4 * sizeof(T), #T "3"); \
  static_assert(sizeof(vec<T, 4>) == 4 * sizeof(T) && alignof(vec<T, 4>) == 4 * sizeof(T), #T "4"); \
  static_assert(__builtin_offsetof(vec<T, 4>, w) == 3 * sizeof(T), #T " offset");             \
  static_assert(sizeof(packed_vec<T, 3>) == 3 * sizeof(T) && alignof(packed_vec<T, 3>) == alignof(T), #T " packed");
LAYOUT(float) LAYOUT(half) LAYOUT(bfloat) LAYOUT(int) LAYOUT(uint) LAYOUT(short) LAYOUT(ushort)
LAYOUT(char) LAYOUT(uchar) LAYOUT(long) LAYOUT(ulong) LAYOUT(bool)

template <class A, class B> bool eq(const A& a, const B& b) { return all(__vec_of<A>(a) == __vec_of<B>(b)); }
// A swizzle is a value of the swizzled vector's type: a template deduces float2, not a proxy.
template <class V> V same(const V& v) { return v; }

// Swizzles of constexpr vectors are constant expressions: a vector initialised by a swizzle, the
// letters r g b a, a swizzle of a swizzle, a conversion, and writes through swizzles in a
// constexpr function.
constexpr int3 kShift = {13, 19, 12};
constexpr int2 kEnds = kShift.zx;
static_assert(kEnds.x == 12 && kEnds.y == 13, "a constexpr vector from a swizzle");
static_assert(kShift.b == 12 && kShift.gbr.z == 13 && kShift.zyx.yx.x == 19, "letters and chains");
constexpr float3 kShiftF = float3(kShift);
static_assert(kShiftF.y == 19.0f, "a conversion in a constant expression");
constexpr int3 rotated(int3 v) {
  v.xz = v.zx;
  v.g += 1;
  return v;
}
static_assert(rotated(kShift).x == 12 && rotated(kShift).y == 20 && rotated(kShift).z == 13, "swizzle writes");

extern "C" int main() {  // extern "C": -ffreestanding does not special-case main
  // constructors
  float2 f2 = float2(5, 6);
  float4 v = float4(1.0f, f2, 3);
  CHECK(eq(v, float4(1, 5, 6, 3)));
  CHECK(eq(float4(2), float4(2, 2, 2, 2)));
  float3 v3 = float3(7, 8, 9);
  CHECK(eq(float4(v3, 10), float4(7, 8, 9, 10)));
  CHECK(eq(float4(v.xy, v.zw), v));
  float4 brace = {1, 2, 3, 4};
  CHECK(brace.w == 4 && brace[2] == 3);
  float4 zero = {};
  CHECK(eq(zero, float4(0)));
  // value conversions, not bit casts
  int4 i4 = int4(-1, 2, 3, 70000);
  CHECK(eq(float4(i4), float4(-1, 2, 3, 70000)));
  CHECK(eq(int4(float4(1.7f, -1.7f, 2.5f, -0.5f)), int4(1, -1, 2, 0)));
  half2 h2 = half2(1.5f, -2.0f);
  CHECK(eq(float2(h2), float2(1.5f, -2.0f)));
  CHECK(eq(uchar4(int4(1, 256, 257, -1)), uchar4(1, 0, 1, 255)));
  CHECK(eq(bool3(float3(0, 2, -0.0f)), bool3(false, true, false)));
  CHECK(eq(float2(bool2(true, false)), float2(1, 0)));
  bfloat2 b2 = bfloat2(float2(1.0f, 3.0f));
  CHECK(float(b2.x) == 1.0f && float(b2.y) == 3.0f);
  CHECK(eq(float2(b2 * bfloat(2.0f)), float2(2, 6)));
  // swizzle reads
  float4 s = float4(1, 2, 3, 4);
  CHECK(eq(s.wzyx, float4(4, 3, 2, 1)) && eq(s.xxyy, float4(1, 1, 2, 2)) && eq(s.bgr, float3(3, 2, 1)));
  CHECK(eq(s.yz, float2(2, 3)) && s.a == 4 && s.g == 2);
  // swizzle writes
  s.xy = float2(10, 20);
  CHECK(eq(s, float4(10, 20, 3, 4)));
  s.zw += float2(1, 1);
  CHECK(eq(s, float4(10, 20, 4, 5)));
  s.wx = s.xw;  // swap through a temporary
  CHECK(eq(s, float4(5, 20, 4, 10)));
  s.zy = 0;
  CHECK(eq(s, float4(5, 0, 0, 10)));
  s.x *= 2;
  CHECK(s.x == 10);
  s[3] = 7;
  CHECK(s.w == 7);
  // same-type swizzle copies: contiguous and with gaps (from a non-const and a const source)
  float4 a = float4(1, 2, 3, 4), b = float4(5, 6, 7, 8);
  a.zw = b.zw;
  CHECK(eq(a, float4(1, 2, 7, 8)));
  a = float4(1, 2, 3, 4);
  a.xz = b.xz;
  CHECK(eq(a, float4(5, 2, 7, 4)));
  a = float4(1, 2, 3, 4);
  a.yx = b.yx;
  CHECK(eq(a, float4(5, 6, 3, 4)));
  a = float4(1, 2, 3, 4);
  a.rgb = b.bgr;
  CHECK(eq(a, float4(7, 6, 5, 4)));
  const float4 cb = b;
  a = float4(1, 2, 3, 4);
  a.xz = cb.xz;  // the gap (y) keeps its value
  CHECK(eq(a, float4(5, 2, 7, 4)));
  a.xz = a.zx;   // a swap through the gap
  CHECK(eq(a, float4(7, 2, 5, 4)));
  // a swizzle of a swizzle, a subscript of a swizzle, a swizzle passed to a deducing template
  CHECK(a.zyx.yx.y == 5 && a.wz[1] == 5 && eq(same(a.yw), float2(2, 4)));
  // operators: scalar on either side, mixed scalar types, comparisons, bool vectors
  float4 o = 2 * float4(1, 2, 3, 4) - 1.0f;
  CHECK(eq(o, float4(1, 3, 5, 7)));
  CHECK(eq(1.0f / float2(2, 4), float2(0.5f, 0.25f)));
  bool4 gt = o > 2.5f;
  CHECK(eq(gt, bool4(false, true, true, true)));
  CHECK(any(gt) && !all(gt) && all(gt || !gt) && !any(gt && !gt));
  CHECK(eq(select(float4(0), float4(1), gt), float4(0, 1, 1, 1)));
  CHECK(eq(int4(1, 2, 3, 4) << 33, int4(2, 4, 6, 8)));  // shift counts are masked
  CHECK(eq(uint2(7, 9) % 4u, uint2(3, 1)) && eq(~uint2(0), uint2(0xffffffffu)));
  CHECK(eq(-float2(1, -2), float2(-1, 2)));
  int4 ii = int4(1);
  ii += 2;
  ii++;
  CHECK(eq(ii, int4(4)));
  // packed vectors
  packed_float3 p = float3(1, 2, 3);
  float3 pf = p;
  CHECK(eq(pf, float3(1, 2, 3)) && p.y == 2 && p[2] == 3);
  float3 sum = p + float3(1);
  CHECK(eq(sum, float3(2, 3, 4)));
  packed_float3 parr[2] = {float3(1, 2, 3), float3(4, 5, 6)};
  CHECK(sizeof(parr) == 24 && parr[1].x == 4);
  p.zx = float2(7, 9);
  CHECK(eq(p.xyz, float3(9, 2, 7)) && eq(p.rb, float2(9, 7)));
  packed_char4 pc = char4(1, -2, 3, -4);
  CHECK(eq(float4(pc), float4(1, -2, 3, -4)));
  // as_type
  CHECK(as_type<uint>(1.0f) == 0x3f800000u);
  CHECK(eq(as_type<uint2>(float2(1.0f, -2.0f)), uint2(0x3f800000u, 0xc0000000u)));
  CHECK(as_type<uint>(half2(1.0f, 0.0f)) == 0x3c00u);
  CHECK(eq(as_type<float3>(float4(1, 2, 3, 4)).xyz, float3(1, 2, 3)));
  CHECK(as_type<ushort>(bfloat(1.0f)) == 0x3f80);
  // half vectors round per operation
  half4 hv = half4(2049.0f);  // rounds to 2048 (ties to even)
  CHECK(float(hv.x) == 2048.0f);
  half4 hs = half4(2048.0f) + half4(1.0f);
  CHECK(float(hs.y) == 2048.0f);
  return TEST_RESULT();
}
