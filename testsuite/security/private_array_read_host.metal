// A kernel reads memory below a thread-private array into its output (the host's stack if
// allowed): a finding, and the reads yield zero, so nothing of the host reaches the output.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:uint32:64 --buffer 1=scalar:int32:-60
// run-also: --check all
// expect-exit: 1
// expect-stderr: error [out-of-bounds]: read of 4 bytes at local[-60]: 240 bytes before the start of thread-private array local (16 bytes)
// expect-output: 0 = 0*60 1 2 3 4
#include <metal_stdlib>
using namespace metal;

kernel void k(device uint* out [[buffer(0)]], constant int& from [[buffer(1)]]) {
  thread uint local[4] = {1, 2, 3, 4};
  for (int j = 0; j < 64; ++j) out[j] = local[from + j];
}
