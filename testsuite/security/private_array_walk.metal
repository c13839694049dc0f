// A kernel writes past the end of a thread-private array, far enough to reach the simulator's
// stack (return addresses) if nothing stopped it: a finding, and the writes are not performed.
// run: --grid 2 --threadgroup 2 --buffer 0=zeros:float32:4
// run-also: --check all
// expect-exit: 1
// expect-stderr: error [out-of-bounds]: write of 4 bytes at local[4]: 4 bytes past the end of thread-private array local (16 bytes)
// expect-stderr: private_array_walk.metal:14:44
// expect-output: 0 = 0 1 0 0
#include <metal_stdlib>
using namespace metal;

kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  thread float local[4] = {0, 1, 2, 3};
  for (uint j = 4; j < 4096; ++j) local[j] = as_type<float>(0x41414141u);
  out[i] = local[i];
}
