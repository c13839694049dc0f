#include <metal_stdlib>
using namespace metal;
kernel void broken(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = 1.0f +;
}
