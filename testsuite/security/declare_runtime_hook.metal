// A kernel declares one of the simulator's runtime entry points (the access check the passes
// insert) to call it itself: refused at the declaration.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: declare_runtime_hook.metal:7:17: error: '__mslsim_access' is reserved to mslsim's Metal standard library; a program cannot declare it
#include <metal_stdlib>
extern "C" uint __mslsim_access(thread void* address, ulong bytes, uint site, thread void* value);

kernel void k(device float* out [[buffer(0)]]) {
  __mslsim_access((thread void*)(ulong(out) - 65536), 4, 0, nullptr);
  out[0] = 1.0f;
}
