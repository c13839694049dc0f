// A kernel issues a system call in inline assembly (exit_group on x86-64 Linux).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: inline_assembly.metal:9:3: error: inline assembly, which MSL does not have
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  __asm__ volatile("movl $231, %%eax; xorl %%edi, %%edi; syscall" ::: "rax", "rdi", "memory");
  out[0] = 1.0f;
}
