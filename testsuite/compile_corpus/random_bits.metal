// Counter-based random numbers (a threefry-like mix of uint2 keys), uniform floats from the
// top 23 bits through a union, and Box-Muller normals.
#include <metal_stdlib>
using namespace metal;

union rbits {
  uint2 val;
  uchar bytes[2][4];
};

METAL_FUNC uint2 mix_round(uint2 v, uint r) {
  v.x += v.y;
  v.y = rotate(v.y, r) ^ v.x;
  return v;
}

kernel void rbits_normal(device const uint2* keys [[buffer(0)]],
                         device float2* out [[buffer(1)]],
                         uint gid [[thread_position_in_grid]]) {
  rbits b;
  b.val = keys[0] ^ uint2(gid, gid * 0x9E3779B9u);
  const uint rotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  for (int i = 0; i < 20; ++i) b.val = mix_round(b.val, rotations[i % 8]);
  float u1 = as_type<float>((b.val.x >> 9) | 0x3f800000u) - 1.0f;
  float u2 = float(b.val.y >> 8) * 0x1p-24f;
  float r = sqrt(-2.0f * log(max(u1, 1e-7f)));
  out[gid] = r * float2(cos(2.0f * M_PI_F * u2), sin(2.0f * M_PI_F * u2)) + float(b.bytes[1][3]) * 0.0f;
}
