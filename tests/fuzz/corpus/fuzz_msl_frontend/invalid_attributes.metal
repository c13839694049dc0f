#include <metal_stdlib>
using namespace metal;
kernel void k(device float* a [[buffer(0)]], device float* b [[buffer(0)]],
              threadgroup float* t [[threadgroup(99999999999)]], uint i [[thread_position_in_grid]],
              uint2 j [[no_such_builtin]]) {
  a[i] = b[i] + t[0];
}
