#include <metal_stdlib>
using namespace metal;

// threadgroup variables declared in nested block scopes of a kernel (not at the
// top of the function): a staging array in a plain block, a reduction array in
// an `if` block, and a threadgroup scalar in a block nested inside that.
// Blocks of 64 over 600 elements: the last threadgroup has 24 threads, so
// neighbours and maxima use threads_per_threadgroup.
kernel void nested_threadgroup_blocks(
    device const float* x         [[buffer(0)]],
    device float*       delta     [[buffer(1)]],
    device float*       block_max [[buffer(2)]],
    device float*       rel       [[buffer(3)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    const float v = x[gid];

    {
        threadgroup float stage[64];
        stage[lid] = v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        delta[gid] = v - stage[(lid + 1) % tpg];     // cyclic right neighbour in the group
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    if (tpg > 1) {                                   // uniform across the threadgroup
        threadgroup float red[64];
        red[lid] = v;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        {
            threadgroup float bmax;
            if (lid == 0) {
                float m = red[0];
                for (uint j = 1; j < tpg; ++j) {
                    m = max(m, red[j]);
                }
                bmax = m;
                block_max[tg] = m;
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);
            rel[gid] = v - bmax;
        }
    }
}
