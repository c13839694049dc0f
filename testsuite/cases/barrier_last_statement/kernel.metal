#include <metal_stdlib>
using namespace metal;

// Each thread writes, then waits at a barrier that is the kernel's last statement (nothing after
// it: the threads finish as they leave it).
kernel void k(device float* out, uint gid [[thread_position_in_grid]]) {
  out[gid] = float(gid) * 0.5f;
  threadgroup_barrier(mem_flags::mem_device);
}
