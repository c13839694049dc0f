// A kernel forges a pointer into the simulator's heap (an integer near its output buffer's
// address) and writes through it: under the checks, a finding and no write.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// run-also: --check all
// expect-exit: 1
// expect-stderr: error [out-of-bounds]: write of 4 bytes at address
// expect-stderr: the address is in no buffer and no threadgroup allocation of this dispatch
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  device float* heap = (device float*)(ulong(out) - 4096 * 16);
  for (int j = 0; j < 1024; ++j) heap[j] = 1.0f;
  out[0] = 2.0f;
}
