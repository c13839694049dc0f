#include <metal_stdlib>
using namespace metal;

// Program-scope tables as generic kernels write them (random-number shift tables, masks, small
// transforms): constexpr vectors from a brace list, a constructor, another constexpr vector, a
// swizzle and a conversion, constexpr matrices from scalars and from column vectors; their
// components, letters (xyzw and rgba), swizzles, subscripts and columns in constant expressions
// (static_assert, an array bound, a template argument, a constexpr function that writes through
// swizzles); MSL's vector traits in constant expressions.
constexpr constant int3 kShift = {13, 19, 12};
constexpr constant uint4 kMask = uint4(0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u);
constexpr constant float2 kPair = float2(1.5f, 2.5f);
constexpr constant float4 kQuad = float4(kPair, 3.0f, 4.0f);
constexpr constant float2x2 kRotate = float2x2(0.0f, 1.0f, -1.0f, 0.0f);
constexpr constant float2x2 kScale = float2x2(float2(2.0f, 0.0f), float2(0.0f, 3.0f));
constexpr constant uint2 kTile = uint2(4, 2);
constexpr constant int2 kEnds = kShift.zx;                 // (12, 13)
constexpr constant float3 kShiftF = float3(kShift.bgr);    // (12, 19, 13)

static_assert(kShift[1] == 19 && kShift.z == 12 && kMask.w == 0xFF000000u, "components of constexpr vectors");
static_assert(kQuad.x == 1.5f && kQuad[3] == 4.0f, "a constexpr vector from another");
static_assert(kRotate[1][0] == -1.0f && kScale[1].y == 3.0f, "columns of constexpr matrices");
static_assert(kEnds.x == 12 && kShift.zyx.yx.x == 19 && kQuad.ba.y == 4.0f && kShift.g == 19, "swizzles");
static_assert(kShiftF.z == 13.0f, "a conversion");
// A constexpr function that writes through swizzles, the gap of `xz` kept.
constexpr int3 rotated(int3 v) {
  v.xz = v.zx;
  v.g += 1;
  return v;
}
constexpr constant int3 kRotated = rotated(kShift);        // (12, 20, 13)
constexpr int sum(int3 v) {
  int s = 0;
  for (int k = 0; k < 3; ++k) s += v[k];
  return s;
}
template <int N> struct Constant { static constexpr int value = N; };

static_assert(vec_elements<float4>::value == 4 && vec_elements<half2>::value == 2, "vector widths");
static_assert(vec_elements<float>::value == 0, "a scalar has no vector width");
static_assert(is_vector_v<int3> && is_vector_v<const packed_float3> && !is_vector_v<float>, "is_vector");

template <typename V> uint components() { return vec_elements<V>::value ?: 1; }

kernel void tables(device const float2* p [[buffer(0)]], device float2* q [[buffer(1)]],
                   device int* t [[buffer(2)]], uint i [[thread_position_in_grid]],
                   uint lid [[thread_position_in_threadgroup]]) {
  threadgroup int scratch[kTile.x * kTile.yx.x];  // 8 words, one per thread of a threadgroup of 4 used
  scratch[lid] = sum(kShift) * 100000 + Constant<kShift.y>::value * 10000 + int(sizeof(scratch));
  q[i] = kScale * (kRotate * p[i]) + kQuad.zw * float(kPair[i % 2]) + float2(kEnds) * kShiftF.rg;
  t[i] = kShift[i % 3] + int(kMask[i % 4] >> 24) + int(components<float3>() * 100 + components<float>() * 1000) +
         scratch[lid] + Constant<kRotated.y>::value * 1000000 + kRotated[i % 3] * 10000000;
}
