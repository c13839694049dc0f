// Row argmax with NaN propagation (isnan), index ties broken toward the smaller index, and a
// simd_shuffle_down tree over (value, index) pairs.
#include <metal_stdlib>
using namespace metal;

struct ArgMax {
  float v;
  uint i;
};

METAL_FUNC ArgMax better(ArgMax a, ArgMax b) {
  if (isnan(a.v)) return a;
  if (isnan(b.v)) return b;
  if (b.v > a.v || (b.v == a.v && b.i < a.i)) return b;
  return a;
}

kernel void argmax_rows(device const float* x [[buffer(0)]],
                        device uint* idx [[buffer(1)]],
                        constant uint& n [[buffer(2)]],
                        uint row [[threadgroup_position_in_grid]],
                        ushort lane [[thread_index_in_simdgroup]]) {
  ArgMax best = {-numeric_limits<float>::infinity(), 0};
  for (uint i = lane; i < n; i += 32) best = better(best, ArgMax{x[row * n + i], i});
  for (ushort off = 16; off > 0; off /= 2) {
    ArgMax other = {simd_shuffle_down(best.v, off), simd_shuffle_down(best.i, off)};
    best = better(best, other);
  }
  if (lane == 0) idx[row] = best.i;
}
