// 64-bit integer math: ulong offsets for large tensors, long division, mulhi on 64 bits.
#include <metal_stdlib>
using namespace metal;

kernel void large_offsets(device const float* src [[buffer(0)]],
                          device float* dst [[buffer(1)]],
                          constant long4& strides [[buffer(2)]],
                          constant ulong& total [[buffer(3)]],
                          uint3 gid [[thread_position_in_grid]]) {
  long off = long(gid.x) * strides.x + long(gid.y) * strides.y + long(gid.z) * strides.z;
  ulong u = ulong(off) % total;
  long q = off / 7, r = off % 7;
  ulong hi = mulhi(u, 0x9E3779B97F4A7C15ul);
  int64_t mixed = int64_t(hi ^ (u << 13) ^ (u >> 7));
  uint64_t rot = rotate(ulong(mixed), 17ul);
  dst[u] = src[u] + float(q + r) * 0.0f + float(popcount(rot)) * 0.0f + float(clz(ulong(1))) * 0.0f;
}
