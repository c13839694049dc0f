// Sizes and alignment of vectors (3-component = 4-component storage) and packed vectors.
#include <metal_stdlib>
using namespace metal;

static_assert(sizeof(float3) == 16 && alignof(float3) == 16, "float3 is 16 bytes");
static_assert(sizeof(half3) == 8, "half3 is 8 bytes");
static_assert(sizeof(char3) == 4, "char3 is 4 bytes");
static_assert(sizeof(long3) == 32, "long3 is 32 bytes");
static_assert(sizeof(bool3) == 4, "bool3 is 4 bytes");
static_assert(sizeof(packed_float3) == 12 && alignof(packed_float3) == 4, "packed_float3 is 12 bytes");
static_assert(sizeof(packed_half3) == 6 && alignof(packed_half3) == 2, "packed_half3 is 6 bytes");
static_assert(sizeof(float4) == 16 && sizeof(ushort2) == 4, "vector sizes");

struct Vertex {
  packed_float3 position;
  packed_half3 normal;
  ushort material;
};
static_assert(sizeof(Vertex) == 20, "packed struct layout");

kernel void vertex_bounds(device const Vertex* v [[buffer(0)]],
                          device float4* out [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  float3 p = float3(v[i].position);
  half3 n = half3(v[i].normal);
  out[i] = float4(p + float3(n), float(v[i].material));
}
