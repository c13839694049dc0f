// The individual system headers real MSL includes, and SPIRV-Cross's <simd/simd.h> types.
#include <metal_atomic>
#include <metal_common>
#include <metal_compute>
#include <metal_integer>
#include <metal_logging>
#include <metal_math>
#include <metal_simdgroup>
#include <metal_simdgroup_matrix>
#include <simd/simd.h>

using namespace metal;

struct Uniforms {
  simd::float4x4 mvp;
  simd_float3 light;
  simd::packed_float2 uv;
};

kernel void main0(constant Uniforms& u [[buffer(0)]], device float4* out [[buffer(1)]],
                  uint gid [[thread_position_in_grid]]) {
  float4 p = float4(u.light, 1.0f);
  out[gid] = u.mvp * p + float4(u.uv.x, u.uv.y, 0.0f, 0.0f);
}
