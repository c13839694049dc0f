// A kernel declares memcpy (which the JIT may call for memory intrinsics, so the host has it) and
// copies through a forged pointer with it, past the checks: refused.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: call_memcpy.metal:11:3: error: call to 'memcpy', which is declared but not defined in the program
#include <metal_stdlib>
extern "C" thread void* memcpy(thread void* to, thread const void* from, ulong bytes);

kernel void k(device float* out [[buffer(0)]]) {
  float x = 1.0f;
  memcpy((thread void*)(ulong(out) - 65536), &x, 4);
  out[0] = x;
}
