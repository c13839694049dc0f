// SPIRV-Cross style output: pragma clang diagnostic, spvUnsafeArray helper template, main0,
// buffers of structs with packed_float3, and combined barrier flags.
#pragma clang diagnostic ignored "-Wmissing-prototypes"
#pragma clang diagnostic ignored "-Wmissing-braces"

#include <metal_stdlib>
#include <simd/simd.h>

using namespace metal;

template <typename T, size_t Num>
struct spvUnsafeArray {
  T elements[Num ? Num : 1];
  thread T& operator[](size_t pos) thread { return elements[pos]; }
  constexpr const thread T& operator[](size_t pos) const thread { return elements[pos]; }
  device T& operator[](size_t pos) device { return elements[pos]; }
  constexpr const device T& operator[](size_t pos) const device { return elements[pos]; }
  constexpr const constant T& operator[](size_t pos) const constant { return elements[pos]; }
  threadgroup T& operator[](size_t pos) threadgroup { return elements[pos]; }
  constexpr const threadgroup T& operator[](size_t pos) const threadgroup { return elements[pos]; }
};

struct SSBO {
  packed_float3 in_data[64];
};
struct SSBO2 {
  float4 out_data[64];
};

constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(64u, 1u, 1u);

kernel void main0(device SSBO& _23 [[buffer(0)]], device SSBO2& _45 [[buffer(1)]],
                  uint3 gl_GlobalInvocationID [[thread_position_in_grid]],
                  uint gl_LocalInvocationIndex [[thread_index_in_threadgroup]]) {
  threadgroup spvUnsafeArray<float, 64> sShared;
  uint ident = gl_GlobalInvocationID.x;
  sShared[gl_LocalInvocationIndex] = float3(_23.in_data[ident % 64]).x;
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup | mem_flags::mem_texture);
  spvUnsafeArray<float, 4> local;
  local[0] = sShared[(63u - gl_LocalInvocationIndex) % 64];
  _45.out_data[ident % 64] = float4(local[0]);
}
