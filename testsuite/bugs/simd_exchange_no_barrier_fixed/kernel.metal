#include <metal_stdlib>
using namespace metal;

// Shifts each SIMD-group's half values up by one lane (lane 0 gets 0) through
// threadgroup memory: every lane stores its value, then reads the slot of lane - 1.
// A simdgroup_barrier orders the store and the neighbour's read.
kernel void simd_shift_up(
    device const half* x   [[buffer(0)]],
    device half*       out [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    ushort lid  [[thread_index_in_threadgroup]],
    ushort lane [[thread_index_in_simdgroup]])
{
    threadgroup half stage[128];
    stage[lid] = x[gid];
    simdgroup_barrier(mem_flags::mem_threadgroup);
    const half prev = (lane > 0) ? stage[lid - 1] : half(0);
    out[gid] = prev;
}
