#include <metal_stdlib>
using namespace metal;

// The only barrier is the kernel's first statement (a resume function with a single suspension
// point: once taken for threads waiting at different barriers under --check none).
kernel void k(device float* out, uint lid [[thread_position_in_threadgroup]], uint tg [[threadgroup_position_in_grid]]) {
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0) out[tg] = 5.0f + float(tg);
}
