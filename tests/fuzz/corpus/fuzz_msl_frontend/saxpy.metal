#include <metal_stdlib>
using namespace metal;

kernel void saxpy(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                  constant float& a [[buffer(2)]], constant uint& n [[buffer(3)]],
                  uint i [[thread_position_in_grid]]) {
  if (i >= n) return;
  y[i] = a * x[i] + y[i];
}

// The same with a bug: every thread also adds into y[0].
kernel void saxpy_racy(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                       constant float& a [[buffer(2)]], constant uint& n [[buffer(3)]],
                       uint i [[thread_position_in_grid]]) {
  if (i >= n) return;
  y[i] = a * x[i] + y[i];
  y[0] += 1.0f;
}
