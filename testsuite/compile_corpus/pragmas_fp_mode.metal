// Floating-point mode pragmas (parsed; ggml's quantizers use math_mode) and METAL internals.
#pragma METAL internals : enable
#include <metal_stdlib>
using namespace metal;

#pragma METAL fp math_mode(safe)
#pragma METAL fp contract(off)

namespace quant {
#pragma METAL fp math_mode(relaxed)
METAL_FUNC float round_scale(float amax) { return amax / 127.0f; }
}  // namespace quant

kernel void quantize_q8(device const float* x [[buffer(0)]],
                        device char* q [[buffer(1)]],
                        device float* scale [[buffer(2)]],
                        uint row [[threadgroup_position_in_grid]],
                        uint lane [[thread_index_in_simdgroup]]) {
#pragma STDC FP_CONTRACT OFF
  float v = x[row * 32 + lane];
  float amax = simd_max(fabs(v));
  float d = quant::round_scale(amax);
  float id = d ? 1.0f / d : 0.0f;
  q[row * 32 + lane] = char(round(v * id));
  if (lane == 0) scale[row] = d;
}

// `metal::_disjunction` is one of the internal names that `#pragma METAL internals` unlocks.
template <typename T>
constexpr bool is_small_int = metal::_disjunction<metal::is_same<T, char>, metal::is_same<T, short>>::value;
static_assert(is_small_int<short> && !is_small_int<int>, "_disjunction");
