// A kernel calls the C library's frexpf, which writes the exponent through its pointer, with a
// forged pointer: refused (the standard library's frexp takes a thread reference).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: frexp_forged_pointer.metal:10:12: error: 'frexpf' would write through a pointer that is not the address of a local variable of 4 bytes
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = __builtin_frexpf(3.0f, (thread int*)(ulong(out) - 65536));
}
