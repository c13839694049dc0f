// Every compute built-in, in scalar, uint2/uint3 and ushort forms.
#include <metal_stdlib>
using namespace metal;

kernel void positions_3d(device uint* out [[buffer(0)]],
                         uint3 gid [[thread_position_in_grid]],
                         uint3 lid [[thread_position_in_threadgroup]],
                         uint3 tgid [[threadgroup_position_in_grid]],
                         uint3 tpt [[threads_per_threadgroup]],
                         uint3 dtpt [[dispatch_threads_per_threadgroup]],
                         uint3 tpg [[threads_per_grid]],
                         uint3 tgpg [[threadgroups_per_grid]],
                         uint tidx [[thread_index_in_threadgroup]]) {
  uint linear = (gid.z * tpg.y + gid.y) * tpg.x + gid.x;
  out[linear] = lid.x + tgid.y * tpt.x + tgpg.z + dtpt.x + tidx;
}

kernel void positions_2d_ushort(device float* out [[buffer(0)]],
                                ushort2 gid [[thread_position_in_grid]],
                                ushort2 lid [[thread_position_in_threadgroup]],
                                ushort2 tpt [[threads_per_threadgroup]],
                                ushort2 tpg [[threads_per_grid]],
                                ushort tidx [[thread_index_in_threadgroup]],
                                ushort lane [[thread_index_in_simdgroup]],
                                ushort sg [[simdgroup_index_in_threadgroup]],
                                ushort nsg [[simdgroups_per_threadgroup]],
                                ushort width [[threads_per_simdgroup]],
                                ushort qlane [[thread_index_in_quadgroup]],
                                ushort quad [[quadgroup_index_in_threadgroup]]) {
  out[gid.y * tpg.x + gid.x] = float(lid.x + tpt.y + tidx + lane + sg * width + nsg + qlane + quad);
}

kernel void positions_legacy(device uint* out [[buffer(0)]],
                             uint gid [[thread_position_in_grid]],
                             uint tg [[threadgroup_position_in_grid]],
                             uint tgs [[threadgroups_per_grid]],
                             uint width [[thread_execution_width]]) {
  out[gid] = tg * tgs + width;
}
