// corpus-args: --constant 20=3 --constant 21=false
// A function constant as a buffer binding index and constants derived from other constants.
#include <metal_stdlib>
using namespace metal;

constant int weights_index [[function_constant(20)]];
constant bool transpose_w [[function_constant(21)]];
constant int out_index = is_function_constant_defined(weights_index) ? weights_index + 1 : 2;

kernel void fc_indexed(device const float* x [[buffer(0)]],
                       device const float* w [[buffer(weights_index)]],
                       device float* y [[buffer(out_index)]],
                       uint gid [[thread_position_in_grid]]) {
  float v = transpose_w ? w[gid * 4] : w[gid];
  y[gid] = x[gid] * v;
}
