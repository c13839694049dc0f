// A kernel that never ends on purpose: every thread waits for a flag nobody sets. The dispatch
// is stopped and reported as a deadlock within about a second, not after the time limit, in
// every check mode; the process goes on.
// run: --grid 64 --threadgroup 32 --buffer 0=zeros:uint32:1 --buffer 1=zeros:float32:64
// run-also: --check none
// run-also: --check all
// expect-exit: 1
// expect-stderr: error [deadlock]
// expect-stderr: keeps reading buffer 0 (argument 'flag')[0] (value 0)
#include <metal_stdlib>
using namespace metal;

kernel void k(device atomic_uint* flag [[buffer(0)]], device float* out [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
  while (atomic_load_explicit(flag, memory_order_relaxed) == 0) {}
  out[i] = 1.0f;
}
