// A kernel reads the host's environment with getenv() and changes it with setenv().
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'setenv', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" int setenv(const char*, const char*, int);
extern "C" char* getenv(const char*);

kernel void k(device float* out [[buffer(0)]]) {
  setenv("MSLSIM_PWNED", "1", 1);
  out[0] = getenv("HOME") != nullptr;
}
