// The bug: `round % 3` takes a third row of a two-row constant table (in round 2).
#include <metal_stdlib>
using namespace metal;

static constexpr constant uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};

kernel void mix(device const uint* in [[buffer(0)]], device uint* out [[buffer(1)]],
                uint i [[thread_position_in_grid]]) {
  uint x = in[i], y = i;
  for (int round = 0; round < 5; ++round) {
    for (auto r : rotations[round % 3]) {
      x += y;
      y = (y << r) | (y >> (32 - r));
      y ^= x;
    }
  }
  out[i] = x ^ y;
}
