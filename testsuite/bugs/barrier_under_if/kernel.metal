#include <metal_stdlib>
using namespace metal;

// Block sums of 32 floats per threadgroup: the upper 16 values are folded onto the
// lower 16 in threadgroup memory, then thread 0 adds the 16 folded values.
// BUG: a barrier inside `if (lid < 16)`: threads 0..15 wait there while threads
// 16..31 wait at the barrier after the if.
kernel void fold_block_sum(
    device const float* in  [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    threadgroup float tile[32];
    threadgroup float folded[16];
    tile[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid < 16) {
        folded[lid] = tile[lid] + tile[lid + 16];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == 0) {
        float s = 0.0f;
        for (uint i = 0; i < 16; ++i) {
            s += folded[i];
        }
        out[tg] = s;
    }
}
