// Recursion until the stack ends. MSL does not allow recursive calls.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4 --buffer 1=scalar:int32:100000000
// expect-exit: 2
// expect-stderr: recursion.metal:9:27: error: recursive call to 'depth(int)', which MSL does not allow
#include <metal_stdlib>
using namespace metal;

int depth(int n) {
  return n <= 0 ? 0 : 1 + depth(n - 1) + depth(n - 2) * 0;
}

kernel void k(device float* out [[buffer(0)]], constant int& n [[buffer(1)]]) {
  out[0] = depth(n);
}
