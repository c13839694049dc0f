// A constructor function, which a native loader would run when the code is loaded.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: the program has a global constructor or destructor
#include <metal_stdlib>
using namespace metal;
__attribute__((constructor)) void on_load() { for (;;) {} }

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = 1.0f;
}
