// A kernel ends the host process with exit(0), which would pass for success.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'exit', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" [[noreturn]] void exit(int);

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = 1.0f;
  exit(0);
}
