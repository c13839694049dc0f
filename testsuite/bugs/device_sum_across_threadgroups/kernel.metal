#include <metal_stdlib>
using namespace metal;

// Sum of 1024 uints: each threadgroup of 256 reduces its block (simd_sum, then the 8
// SIMD-group partials through threadgroup memory) and thread 0 adds the block sum to
// total[0]. BUG: with a plain `+=`: the thread 0s of different threadgroups
// read and write total[0] unordered (nothing orders threadgroups).
kernel void block_sum_accumulate(
    device const uint* x     [[buffer(0)]],
    device uint*        total [[buffer(1)]],
    uint   gid  [[thread_position_in_grid]],
    uint   lid  [[thread_index_in_threadgroup]],
    ushort lane [[thread_index_in_simdgroup]],
    ushort sg   [[simdgroup_index_in_threadgroup]])
{
    threadgroup uint partials[8];
    const uint s = simd_sum(x[gid]);
    if (lane == 0) {
        partials[sg] = s;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        uint block = 0;
        for (uint i = 0; i < 8; ++i) {
            block += partials[i];
        }
        total[0] += block;
    }
}
