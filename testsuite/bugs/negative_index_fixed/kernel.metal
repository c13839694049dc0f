#include <metal_stdlib>
using namespace metal;

// 3-point blur 0.25 x[i-1] + 0.5 x[i] + 0.25 x[i+1] of n = 1000 floats with clamped
// (replicated) borders, signed indices.
// Both neighbours are clamped.
kernel void blur3(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    constant int&       n [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    const int i = int(gid);
    if (i >= n) {
        return;
    }
    const int left = max(i - 1, 0);
    const int right = min(i + 1, n - 1);
    y[i] = 0.25f * x[left] + 0.5f * x[i] + 0.25f * x[right];
}
