// Integer semantics: unsigned wrap-around, arithmetic right shift of negatives, masked shift
// counts, division truncating toward zero (an LCG and xorshift hash).
#include <metal_stdlib>
using namespace metal;

kernel void hash_mix(device const uint* seeds [[buffer(0)]],
                     device uint* out [[buffer(1)]],
                     device int* signed_out [[buffer(2)]],
                     uint i [[thread_position_in_grid]]) {
  uint s = seeds[i];
  s = s * 1664525u + 1013904223u;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  uint count = i & 31;
  out[i] = s + (s << count) + (s >> (count + 1) % 32);
  int neg = -int(s & 0xffff);
  signed_out[i] = (neg >> 3) + neg / 4 + neg % 5;
  ushort small = ushort(s);
  small += ushort(65535);
  char c = char(s);
  signed_out[i] += int(small) + int(c >> 2);
}
