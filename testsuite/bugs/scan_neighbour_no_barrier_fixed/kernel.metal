#include <metal_stdlib>
using namespace metal;

// In-place Hillis-Steele inclusive scan of each block of 256 floats in threadgroup
// memory: at every step each thread reads the slot `offset` to its left, then adds it
// to its own slot.
// A barrier separates every step's reads from its stores.
kernel void hillis_steele_scan(
    device const float* in  [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup float buf[256];
    buf[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint offset = 1; offset < tpg; offset <<= 1) {
        const float left = (lid >= offset) ? buf[lid - offset] : 0.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        buf[lid] += left;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    out[gid] = buf[lid];
}
