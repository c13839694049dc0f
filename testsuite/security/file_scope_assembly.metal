// File-scope assembly defines a function the kernel then calls.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: the program contains file-scope assembly, which MSL does not have
#include <metal_stdlib>
using namespace metal;
__asm__(".globl pwn\npwn:\n movl $231, %eax\n xorl %edi, %edi\n syscall\n");
extern "C" void pwn();

kernel void k(device float* out [[buffer(0)]]) {
  pwn();
  out[0] = 1.0f;
}
