#include <metal_stdlib>
using namespace metal;

// Backward differences of n = 1000 halves, d[i] = x[i] - x[i - 1] (x[-1] = 0), through
// threadgroup memory; dispatched as 4 threadgroups of 256, so 24 threads of the last
// threadgroup are past the end.
// Threads past the end store a dummy value and reach the barrier.
kernel void backward_difference(
    device const half* x [[buffer(0)]],
    device half*       d [[buffer(1)]],
    constant uint&     n [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup half tile[256];
    tile[lid] = (gid < n) ? x[gid] : half(0);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (gid < n) {
        const half prev = (lid > 0) ? tile[lid - 1] : ((gid > 0) ? x[gid - 1] : half(0));
        d[gid] = tile[lid] - prev;
    }
}
