// Recursion until the stack ends: each call keeps an array alive across the next one, so the
// compiler cannot turn it into a loop. A thread that exhausts its stack is reported, and the
// process goes on (Apple's compiler allows recursion; MLX's LoopedElemToLoc::next recurses).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:int32:4 --buffer 1=scalar:int32:100000000
// run-also: --check none
// run-also: --check all
// expect-exit: 1
// expect-stderr: error [stack-overflow]
// expect-stderr: recursion are too large
#include <metal_stdlib>
using namespace metal;

int depth(device int* sink, int n) {
  thread int local[64];
  for (int i = 0; i < 64; ++i) local[i] = n + i;
  sink[1] = local[n & 63];
  return n <= 0 ? 0 : depth(sink, n - 1) + local[(n * 7) & 63];
}

kernel void k(device int* out [[buffer(0)]], constant int& n [[buffer(1)]]) {
  out[0] = depth(out, n);
}
