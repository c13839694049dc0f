// A kernel loads a shared library with dlopen() and looks a symbol up.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'dlopen', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" void* dlopen(const char*, int);
extern "C" void* dlsym(void*, const char*);

kernel void k(device float* out [[buffer(0)]]) {
  void* self = dlopen(nullptr, 2);
  out[0] = dlsym(self, "system") != nullptr;
}
