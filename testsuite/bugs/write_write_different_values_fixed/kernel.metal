#include <metal_stdlib>
using namespace metal;

// Column sums of a rows x 32 matrix in one 2-D threadgroup of 32x4 threads: thread
// (x, y) sums rows y, y + 4, ... of column x; each row of threads is one SIMD-group.
// The four partials of a column are combined through threadgroup memory.
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
    threadgroup float parts[4][32];
    parts[lid.y][lid.x] = partial;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid.y == 0) {
        sums[lid.x] = parts[0][lid.x] + parts[1][lid.x] + parts[2][lid.x] + parts[3][lid.x];
    }
}
