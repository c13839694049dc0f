// Data-dependent loops: Collatz step counts (as in naga's tests) with a loop bound.
#include <metal_stdlib>
using namespace metal;

kernel void collatz(device uint* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  uint n = v[i], steps = 0;
  while (n > 1u && steps < 1000u) {
    n = (n & 1u) ? 3u * n + 1u : n / 2u;
    ++steps;
  }
  v[i] = steps;
}
