// Function constants: specialisation flags with is_function_constant_defined, derived constants.
#include <metal_stdlib>
using namespace metal;

constant bool has_bias [[function_constant(0)]];
constant int block_size [[function_constant(1)]];
constant float alpha_fc [[function_constant(2)]];
constant short mode [[function_constant(3)]];
constant bool bias_defined = is_function_constant_defined(has_bias);
constant bool use_bias = bias_defined && has_bias;
constant int block = is_function_constant_defined(block_size) ? block_size : 64;
constant float alpha = is_function_constant_defined(alpha_fc) ? alpha_fc : 1.0f;

kernel void specialised_axpby(device const float* x [[buffer(0)]],
                              device float* y [[buffer(1)]],
                              device const float* bias [[buffer(2)]],
                              uint gid [[thread_position_in_grid]]) {
  float v = alpha * x[gid];
  if (use_bias) v += bias[gid % block];
  if (mode == 1) v = max(v, 0.0f);
  else if (mode == 2) v = tanh(v);
  y[gid] = v;
}
