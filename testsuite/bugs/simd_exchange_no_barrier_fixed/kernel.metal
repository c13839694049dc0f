#include <metal_stdlib>
using namespace metal;

// Inclusive scan of each SIMD-group's 32 half values through threadgroup memory
// (Kogge-Stone: at step `offset` every lane adds the value of lane - offset), with
// simdgroup_barriers instead of threadgroup barriers: only lanes of one SIMD-group
// communicate.
// A simdgroup_barrier also separates each step's reads from its stores.
kernel void simd_scan_tg(
    device const half* x   [[buffer(0)]],
    device half*       out [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lid  [[thread_index_in_threadgroup]],
    ushort lane [[thread_index_in_simdgroup]])
{
    threadgroup half stage[128];
    half v = x[gid];
    stage[lid] = v;
    simdgroup_barrier(mem_flags::mem_threadgroup);
    for (ushort offset = 1; offset < 32; offset <<= 1) {
        const half left = (lane >= offset) ? stage[lid - offset] : half(0);
        simdgroup_barrier(mem_flags::mem_threadgroup);
        v += left;
        stage[lid] = v;
        simdgroup_barrier(mem_flags::mem_threadgroup);
    }
    out[gid] = v;
}
