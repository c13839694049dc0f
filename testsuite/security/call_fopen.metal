// A kernel opens a file for writing through fopen() and fputs().
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'fopen', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" void* fopen(const char*, const char*);
extern "C" int fputs(const char*, void*);

kernel void k(device float* out [[buffer(0)]]) {
  void* f = fopen("mslsim-pwned", "w");
  out[0] = fputs("pwned", f);
}
