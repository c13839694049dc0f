// Lambdas (Metal 3.2+): generic lambdas with auto parameters and captures by reference, as MLX's
// NAX kernels write their per-fragment loops.
#include <metal_stdlib>
using namespace metal;

template <typename F>
METAL_FUNC void for_each_n(int n, F f) {
  for (int i = 0; i < n; ++i) f(i);
}

kernel void lambda_scale(device float* data [[buffer(0)]], constant float& s [[buffer(1)]],
                         uint gid [[thread_position_in_grid]]) {
  float acc = 0.0f;
  auto scale = [&](auto x) { return x * s; };
  for_each_n(4, [&](int i) { acc += scale(data[gid * 4 + i]); });
  auto clamp01 = [](float x) { return clamp(x, 0.0f, 1.0f); };
  data[gid * 4] = clamp01(acc);
}
