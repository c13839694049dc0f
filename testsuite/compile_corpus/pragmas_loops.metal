// Loop and diagnostic pragmas: #pragma unroll, _Pragma("clang loop unroll(full)"),
// #pragma clang loop unroll_count, #pragma unused, #pragma clang diagnostic, #pragma once.
#pragma once
#include <metal_stdlib>
using namespace metal;

#define UNROLL_FULL _Pragma("clang loop unroll(full)")

kernel void unrolled_dot(device const float4* a [[buffer(0)]],
                         device const float4* b [[buffer(1)]],
                         device float* out [[buffer(2)]],
                         uint gid [[thread_position_in_grid]]) {
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) acc += dot(a[gid * 4 + i], b[gid * 4 + i]);
  UNROLL_FULL
  for (int i = 0; i < 2; ++i) acc *= 1.0f;
#pragma clang loop unroll_count(2)
  for (int i = 0; i < 8; ++i) acc += 0.0f * float(i);
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-variable"
  int spare = 3;
#pragma clang diagnostic pop
  int unused_thing = 0;
#pragma unused(unused_thing)
  out[gid] = acc;
}
