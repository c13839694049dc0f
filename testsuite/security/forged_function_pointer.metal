// A kernel forges a function pointer (into the middle of its own code) and calls it: the call
// goes through a null pointer instead, a fault reported as such, in every mode. A pointer to one
// of the program's functions calls it (out[1]).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:2 --buffer 1=scalar:uint64:5
// run-also: --check none
// expect-exit: 1
// expect-stderr: accessed invalid memory at address (nil)
// expect-output: 0 = 0 42
#include <metal_stdlib>
using namespace metal;

typedef float (*unary)(float);
static float twice(float x) { return 2.0f * x; }

kernel void k(device float* out [[buffer(0)]], constant ulong& offset [[buffer(1)]]) {
  unary own = twice;
  out[1] = own(21.0f);
  unary forged = (unary)(ulong(own) + offset);
  out[0] = forged(1.0f);
}
