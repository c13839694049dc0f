// Linear blend skinning: bone matrices as float4x4 in a constant buffer, weights in half4,
// matrix-vector products and a normal matrix from the upper 3x3.
#include <metal_stdlib>
using namespace metal;

struct SkinnedVertex {
  float4 position;
  float4 normal;
  ushort4 bones;
  half4 weights;
};

kernel void skin(device const SkinnedVertex* in [[buffer(0)]],
                 constant float4x4* bones [[buffer(1)]],
                 device float4* out_pos [[buffer(2)]],
                 device float3* out_nrm [[buffer(3)]],
                 uint i [[thread_position_in_grid]]) {
  SkinnedVertex v = in[i];
  float4x4 m = float4x4(0.0f);
  for (int k = 0; k < 4; ++k) m = m + bones[v.bones[k]] * float(v.weights[k]);
  out_pos[i] = m * v.position;
  float3x3 n = float3x3(m[0].xyz, m[1].xyz, m[2].xyz);
  out_nrm[i] = normalize(n * v.normal.xyz);
}
