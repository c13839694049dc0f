#include <metal_stdlib>
using namespace metal;

static constexpr constant uint BLOCK = 256;

// Bitonic sort of each block of 256 keys in threadgroup memory (ascending),
// one key per thread, a barrier after every compare-exchange stage.
// n = 1200 keys: the grid is rounded up to 1280 so the last block is a full
// network; its 80 missing keys are padded with FLT_MAX and sort to the end.
kernel void bitonic_sort_block(
    device const float* in  [[buffer(0)]],
    device float*       out [[buffer(1)]],
    constant uint&      n   [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_position_in_threadgroup]])
{
    threadgroup float keys[BLOCK];
    keys[lid] = (gid < n) ? in[gid] : FLT_MAX;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    for (uint k = 2; k <= BLOCK; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            const uint ixj = lid ^ j;
            if (ixj > lid) {
                const float a = keys[lid];
                const float b = keys[ixj];
                const bool ascending = (lid & k) == 0;
                if ((a > b) == ascending) {
                    keys[lid] = b;
                    keys[ixj] = a;
                }
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);
        }
    }

    if (gid < n) {
        out[gid] = keys[lid];
    }
}
