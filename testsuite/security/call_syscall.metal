// A kernel makes a raw system call (60: exit on x86-64 Linux).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'syscall', which is declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" long syscall(long, ...);

kernel void k(device float* out [[buffer(0)]]) {
  out[0] = syscall(60, 0);
}
