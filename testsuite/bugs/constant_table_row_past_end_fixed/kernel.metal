// MLX's threefry rounds (random.metal): each round takes its rotations from a row of a
// program-scope constant table, `rotations[round % 2]`. Unrolled, the row's pointer is a select
// between the table's two rows: still the table, whose bounds the checks know.
#include <metal_stdlib>
using namespace metal;

static constexpr constant uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};

kernel void mix(device const uint* in [[buffer(0)]], device uint* out [[buffer(1)]],
                uint i [[thread_position_in_grid]]) {
  uint x = in[i], y = i;
  for (int round = 0; round < 5; ++round) {
    for (auto r : rotations[round % 2]) {
      x += y;
      y = (y << r) | (y >> (32 - r));
      y ^= x;
    }
  }
  out[i] = x ^ y;
}
