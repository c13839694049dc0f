// Warp-level shuffles: tree reduction with shuffle_down/xor, rotations and broadcasts.
#include <metal_stdlib>
using namespace metal;

kernel void shuffle_reduce(device const float* x [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           uint gid [[thread_position_in_grid]],
                           ushort lane [[thread_index_in_simdgroup]]) {
  float v = x[gid];
  for (ushort off = 16; off > 0; off >>= 1) v += simd_shuffle_down(v, off);
  float b = simd_broadcast(v, 0);
  float w = x[gid];
  for (ushort m = 1; m < 32; m <<= 1) w = max(w, simd_shuffle_xor(w, m));
  float up = simd_shuffle_up(x[gid], 1);
  float any_lane = simd_shuffle(x[gid], ushort((lane + 5) & 31));
  float rd = simd_shuffle_rotate_down(x[gid], 3), ru = simd_shuffle_rotate_up(x[gid], 3);
  out[gid] = b + w + up + any_lane + rd + ru;
}

kernel void shuffle_int_types(device const int2* x [[buffer(0)]], device int2* out [[buffer(1)]],
                              uint gid [[thread_position_in_grid]]) {
  int2 v = x[gid];
  out[gid] = simd_shuffle_down(v, 2) + simd_shuffle_up(v, 2) + simd_shuffle_xor(v, 4) +
             simd_broadcast(v, 7) + simd_shuffle(v, 3);
  short s = short(v.x);
  out[gid].x += simd_shuffle_xor(s, 1) + simd_broadcast_first(s);
}
