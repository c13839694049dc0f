// A kernel declares the C library's system() and calls it: it must not run on the host.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: call_system.metal:10:24: error: call to 'system', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" int system(const char*);

kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  if (i == 0) out[0] = system("touch mslsim-pwned");
}
