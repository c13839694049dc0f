// A kernel calls one of the standard library's hooks into the simulator, which copies a lane's
// value to where its pointer says, with a forged pointer: refused before anything runs.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: call_stdlib_hook.metal:12:3: error: '__mslsim_simd_exchange' is internal to mslsim's Metal standard library; a program cannot use it
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  float x = 1.0f;
  ulong forged = ulong(out) - 4096 * 16;
  __mslsim_simd_exchange(&x, (thread void*)forged, 4096, "f", 1, 1);
  out[0] = x;
}
