// Exponentials and logarithms: log-sum-exp helpers, exp2/log2 based GELU-ish activations.
#include <metal_stdlib>
using namespace metal;

kernel void exp_log(device const float* x [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    uint i [[thread_position_in_grid]]) {
  float v = x[i];
  float a = exp(v) + exp2(v) + exp10(v * 0.1f);
  float b = log(abs(v) + 1.0f) + log2(abs(v) + 1.0f) + log10(abs(v) + 1.0f);
  float c = pow(abs(v), 1.5f) + powr(abs(v) + 1.0f, 0.5f);
  float d = fast::exp(v) + fast::exp2(v) + fast::log(abs(v) + 2.0f) + fast::pow(2.0f, v);
  float e = precise::exp(v) + precise::log2(abs(v) + 1.0f) + precise::exp10(v) + precise::log10(2.0f + v * v);
  out[i] = a + b + c + d + e;
}

kernel void exp_log_half(device const half4* x [[buffer(0)]],
                         device half4* out [[buffer(1)]],
                         uint i [[thread_position_in_grid]]) {
  half4 v = x[i];
  out[i] = exp(v) * log(abs(v) + 1.0h) + exp2(v) - log2(v * v + 1.0h) + pow(abs(v), half4(2.0h));
}
