// Optional kernel arguments gated by function constants (MLX's masked GEMM style).
#include <metal_stdlib>
using namespace metal;

constant bool has_mask [[function_constant(10)]];
constant bool has_scale [[function_constant(11)]];
constant bool no_scale = !has_scale;

kernel void masked_copy(device const float* src [[buffer(0)]],
                        device float* dst [[buffer(1)]],
                        device const bool* mask [[buffer(2), function_constant(has_mask)]],
                        constant float& scale [[buffer(3), function_constant(has_scale)]],
                        uint gid [[thread_position_in_grid]]) {
  float v = src[gid];
  if (has_mask && !mask[gid]) v = 0.0f;
  if (has_scale) v *= scale;
  if (no_scale) v += 0.0f;
  dst[gid] = v;
}
