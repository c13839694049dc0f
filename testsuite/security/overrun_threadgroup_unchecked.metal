// Writes far past the end of threadgroup memory with no checks: it lives in memory fenced by
// inaccessible pages, so the write faults, reported with the distance, and the process goes on.
// run: --grid 64 --threadgroup 64 --buffer 0=zeros:float32:64 --check none
// expect-exit: 1
// expect-stderr: error [invalid-memory-access]
// expect-stderr: bytes past the end of threadgroup memory (256 bytes)
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup float tile[64];
  for (uint j = 0; j < 4096; ++j) tile[i + 64 * j] = 1.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = tile[i];
}
