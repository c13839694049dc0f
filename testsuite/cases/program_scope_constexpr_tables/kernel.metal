#include <metal_stdlib>
using namespace metal;

// Program-scope tables as generic kernels write them (random-number shift tables, masks, small
// transforms): constexpr vectors from a brace list, a constructor and another constexpr vector,
// constexpr matrices from scalars and from column vectors; MSL's vector traits in constant
// expressions.
constexpr constant int3 kShift = {13, 19, 12};
constexpr constant uint4 kMask = uint4(0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u);
constexpr constant float2 kPair = float2(1.5f, 2.5f);
constexpr constant float4 kQuad = float4(kPair, 3.0f, 4.0f);
constexpr constant float2x2 kRotate = float2x2(0.0f, 1.0f, -1.0f, 0.0f);
constexpr constant float2x2 kScale = float2x2(float2(2.0f, 0.0f), float2(0.0f, 3.0f));

static_assert(vec_elements<float4>::value == 4 && vec_elements<half2>::value == 2, "vector widths");
static_assert(vec_elements<float>::value == 0, "a scalar has no vector width");
static_assert(is_vector_v<int3> && is_vector_v<const packed_float3> && !is_vector_v<float>, "is_vector");

template <typename V> uint components() { return vec_elements<V>::value ?: 1; }

kernel void tables(device const float2* p [[buffer(0)]], device float2* q [[buffer(1)]],
                   device int* t [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  q[i] = kScale * (kRotate * p[i]) + kQuad.zw * float(kPair[i % 2]);
  t[i] = kShift[i % 3] + int(kMask[i % 4] >> 24) + int(components<float3>() * 100 + components<float>() * 1000);
}
