#include <metal_stdlib>
using namespace metal;

// Hillis-Steele inclusive scan of each block of 256 floats in threadgroup memory, with
// two buffers used in turn: step k reads buf[src] (own slot and the slot `offset` to
// the left) and writes buf[src ^ 1], then all threads wait at a barrier.
// BUG: no barrier between storing the inputs and the first step, which reads the
// left neighbour's slot (lane - 1: the same SIMD-group, except at lane 0 where the
// neighbour is the previous SIMD-group's lane 31).
kernel void hillis_steele_scan(
    device const float* in  [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float buf[2][256];
    uint src = 0;
    buf[0][lid] = in[gid];
    // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint offset = 1; offset < tpg; offset <<= 1) {
        const float mine = buf[src][lid];
        const float left = (lid >= offset) ? buf[src][lid - offset] : 0.0f;
        buf[src ^ 1][lid] = mine + left;
        src ^= 1;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    out[gid] = buf[src][lid];
}
