// The forged pointer of forged_pointer.metal with no checks at all: the buffers of an unchecked
// run are staged into memory fenced by inaccessible pages, so the write faults instead of landing
// in the simulator's heap, and the fault is a finding that says where it was.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4 --check none
// expect-exit: 1
// expect-stderr: error [invalid-memory-access]
// expect-stderr: 65536 bytes before the start of buffer 0 ('out') (16 bytes)
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]]) {
  device float* heap = (device float*)(ulong(out) - 4096 * 16);
  for (int j = 0; j < 1024; ++j) heap[j] = 1.0f;
  out[0] = 2.0f;
}
