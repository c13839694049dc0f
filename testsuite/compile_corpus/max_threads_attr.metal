// [[max_total_threads_per_threadgroup(n)]] on kernels (tint emits it on every entry point) and
// [[maybe_unused]] parameters.
#include <metal_stdlib>
using namespace metal;

[[max_total_threads_per_threadgroup(256)]]
kernel void relu_limited(device float* x [[buffer(0)]],
                         [[maybe_unused]] device float* unused_buf [[buffer(1)]],
                         uint gid [[thread_position_in_grid]]) {
  x[gid] = max(x[gid], 0.0f);
}

kernel void leaky_relu(device float* x [[buffer(0)]], constant float& slope [[buffer(1)]],
                       uint gid [[thread_position_in_grid]]) [[max_total_threads_per_threadgroup(1024)]] {
  float v = x[gid];
  x[gid] = v > 0.0f ? v : v * slope;
}
