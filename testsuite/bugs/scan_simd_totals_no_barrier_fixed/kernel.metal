#include <metal_stdlib>
using namespace metal;

// Block-wise inclusive int scan: simd_prefix_inclusive_sum inside each SIMD-group, the
// SIMD-group totals (cleared first) published by lane 31 in threadgroup memory, and every
// thread adds the totals of the SIMD-groups before its own. Blocks of 256.
// A barrier separates publishing the totals from reading them.
kernel void block_scan_simd(
    device const int* in  [[buffer(0)]],
    device int*       out [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    uint   lid  [[thread_index_in_threadgroup]],
    ushort lane [[thread_index_in_simdgroup]],
    ushort sg   [[simdgroup_index_in_threadgroup]])
{
    threadgroup int sg_totals[8];
    if (lid < 8) {
        sg_totals[lid] = 0;   // SIMD-groups missing from a partial threadgroup count as 0
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const int x = in[gid];
    const int incl = simd_prefix_inclusive_sum(x);
    if (lane == 31) {
        sg_totals[sg] = incl;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    int offset = 0;
    for (ushort i = 0; i < sg; ++i) {
        offset += sg_totals[i];
    }
    out[gid] = offset + incl;
}
