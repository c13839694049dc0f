// Writes far past the end of a buffer with no checks: the buffers of an unchecked run are staged
// into memory fenced by inaccessible pages, so the write faults, reported with the distance; the
// host's heap is untouched and the process goes on (before, such writes corrupted mslsim's own
// allocations).
// run: --grid 64 --threadgroup 64 --buffer 0=zeros:float32:64 --check none
// expect-exit: 1
// expect-stderr: error [invalid-memory-access]
// expect-stderr: bytes past the end of buffer 0 ('out') (256 bytes)
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  for (uint j = 0; j < 4096; ++j) out[i + 1000 * j] = 1.0f;
}
