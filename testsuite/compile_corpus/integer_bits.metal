// Integer bit tricks: counting, reversing, rotating, field extraction and insertion.
#include <metal_integer>
#include <metal_stdlib>
using namespace metal;

kernel void bit_tricks(device const uint* a [[buffer(0)]],
                       device uint4* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  uint x = a[i];
  uint lz = clz(x);
  uint tz = ctz(x);
  uint pc = popcount(x);
  uint rb = reverse_bits(x);
  uint rl = rotate(x, 7u);
  uint field = extract_bits(x, 4, 8);
  uint merged = insert_bits(x, 0xAu, 28, 4);
  int sfield = extract_bits(int(x), 0, 5);
  out[i] = uint4(lz + tz, pc ^ rb, rl + field, merged + uint(sfield));
  // clang builtins MLX uses directly
  out[i].x += uint(__builtin_ctz(x | 1u)) + uint(__builtin_popcount(x));
}

kernel void bit_tricks_vec(device const ushort4* a [[buffer(0)]],
                           device ushort4* out [[buffer(1)]],
                           uint i [[thread_position_in_grid]]) {
  ushort4 v = a[i];
  out[i] = clz(v) + ctz(v) + popcount(v) + reverse_bits(v) + rotate(v, ushort4(1, 2, 3, 4));
}
