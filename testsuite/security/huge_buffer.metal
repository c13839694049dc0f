// A dispatch asks for a buffer of 4 EB: refused with the numbers, before anything is allocated.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:1000000000000000000
// expect-exit: 2
// expect-stderr: 1000000000000000000 elements of float32 take 4000000000000000000 bytes, more than this machine's memory
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = 1.0f;
}
