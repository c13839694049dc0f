#include <metal_stdlib>
using namespace metal;

// Tests of the thread's position against bounds that fall inside a threadgroup: the loop over a
// threadgroup's threads runs as a copy without the test only where it holds for the first and the
// last thread, so the threadgroups the bounds cut must take the loop that tests each thread.
kernel void guards(device const float* x [[buffer(0)]], device float* below [[buffer(1)]],
                   device float* from [[buffer(2)]], constant uint& n [[buffer(3)]],
                   constant int& m [[buffer(4)]], uint gid [[thread_position_in_grid]]) {
  if (gid < n) below[gid] = x[gid] * 2.0f;   // n = 150: threadgroup 2 of 64 threads is cut
  if (int(gid) >= m) from[gid] = x[gid] + 1.0f;  // m = 70: threadgroup 1 is cut
}
