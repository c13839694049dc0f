// A kernel writes to the host's standard output with printf().
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: call_printf.metal:10:12: error: call to 'printf', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" int printf(const char*, ...);

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = printf("pwned\n");
}
