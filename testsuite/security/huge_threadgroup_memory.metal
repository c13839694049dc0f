// A kernel declares a gigabyte of threadgroup memory (Metal allows 32 KiB).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: threadgroup memory
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]]) {
  threadgroup float big[1 << 28];
  big[i] = 1.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[0] = big[0];
}
