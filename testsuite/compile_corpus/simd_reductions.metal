// Per-SIMD-group reductions over float, int and uint, with bitwise reductions on integers.
#include <metal_simdgroup>
#include <metal_stdlib>
using namespace metal;

kernel void simd_reduce_all(device const float* x [[buffer(0)]],
                            device const uint* bits [[buffer(1)]],
                            device float4* outf [[buffer(2)]],
                            device uint4* outi [[buffer(3)]],
                            uint gid [[thread_position_in_grid]],
                            uint lane [[thread_index_in_simdgroup]]) {
  float v = x[gid];
  float s = simd_sum(v), p = simd_product(v), mx = simd_max(v), mn = simd_min(v);
  uint b = bits[gid];
  uint a = simd_and(b), o = simd_or(b), xo = simd_xor(b);
  int si = simd_sum(int(b & 0xff)) + simd_max(int(b)) + simd_min(int(b));
  if (lane == 0) {
    outf[gid / 32] = float4(s, p, mx, mn);
    outi[gid / 32] = uint4(a, o, xo, uint(si));
  }
}

kernel void simd_reduce_vec(device const half4* x [[buffer(0)]], device half4* out [[buffer(1)]],
                            uint gid [[thread_position_in_grid]], ushort lane [[thread_index_in_simdgroup]],
                            ushort sg [[simdgroup_index_in_threadgroup]]) {
  half4 v = x[gid];
  half4 r = simd_sum(v) + simd_max(v) + simd_min(v);
  if (lane == 0) out[gid / 32] = r + half4(sg);
}
