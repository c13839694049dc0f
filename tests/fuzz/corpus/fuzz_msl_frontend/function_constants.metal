#include <metal_stdlib>
using namespace metal;
constant bool use_bias [[function_constant(0)]];
constant int width [[function_constant(1)]];
kernel void k(device float* out [[buffer(0)]], device const float* bias [[buffer(1), function_constant(use_bias)]],
              uint i [[thread_position_in_grid]]) {
  out[i] = use_bias ? bias[i] : float(width);
}
