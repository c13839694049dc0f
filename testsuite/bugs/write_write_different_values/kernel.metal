#include <metal_stdlib>
using namespace metal;

// Column sums of a rows x 32 matrix in one 2-D threadgroup of 32x4 threads: thread
// (x, y) sums rows y, y + 4, ... of column x; each row of threads is one SIMD-group.
// BUG: the partials are never combined: the four threads of a column (one per
// SIMD-group) all store their own partial into sums[x].
kernel void column_sums(
    device const float* m    [[buffer(0)]],
    device float*       sums [[buffer(1)]],
    constant uint&      rows [[buffer(2)]],
    uint2 lid [[thread_position_in_threadgroup]],
    uint2 tpg [[threads_per_threadgroup]])
{
    float partial = 0.0f;
    for (uint r = lid.y; r < rows; r += tpg.y) {
        partial += m[r * 32 + lid.x];
    }
    sums[lid.x] = partial;
}
