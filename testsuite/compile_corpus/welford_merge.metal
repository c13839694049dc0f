// Mean/variance with Welford's algorithm and a butterfly merge of (count, mean, m2) triples
// through simd_shuffle_xor.
#include <metal_stdlib>
using namespace metal;

struct Welford {
  float n, mean, m2;
};

METAL_FUNC Welford merge(Welford a, Welford b) {
  float n = a.n + b.n;
  if (n == 0.0f) return a;
  float delta = b.mean - a.mean;
  return {n, a.mean + delta * b.n / n, a.m2 + b.m2 + delta * delta * a.n * b.n / n};
}

kernel void moments(device const float* x [[buffer(0)]], device float2* out [[buffer(1)]],
                    constant uint& n [[buffer(2)]], uint row [[threadgroup_position_in_grid]],
                    ushort lane [[thread_index_in_simdgroup]]) {
  Welford w = {0, 0, 0};
  for (uint i = lane; i < n; i += 32) {
    float v = x[row * n + i];
    w.n += 1.0f;
    float d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
  }
  for (ushort m = 16; m >= 1; m >>= 1) {
    Welford o = {simd_shuffle_xor(w.n, m), simd_shuffle_xor(w.mean, m), simd_shuffle_xor(w.m2, m)};
    w = merge(w, o);
  }
  if (lane == 0) out[row] = float2(w.mean, w.m2 / max(w.n, 1.0f));
}
