#include <metal_stdlib>
using namespace metal;

// Block-wise exclusive and inclusive prefix sums: simd_prefix_exclusive_sum inside
// each SIMD-group, the SIMD-group totals scanned by SIMD-group 0 through
// threadgroup memory, then added back. 1000 elements in blocks of 256: the last
// block has 232 threads, so its last SIMD-group has 8 active lanes and its total
// comes from lane 7, not lane 31.
kernel void block_scan(
    device const int* in           [[buffer(0)]],
    device int*       excl         [[buffer(1)]],
    device int*       incl         [[buffer(2)]],
    device int*       block_totals [[buffer(3)]],
    uint   gid  [[thread_position_in_grid]],
    uint   tpg  [[threads_per_threadgroup]],
    uint   tg   [[threadgroup_position_in_grid]],
    ushort lane [[thread_index_in_simdgroup]],
    ushort sg   [[simdgroup_index_in_threadgroup]])
{
    threadgroup int sg_totals[32];
    threadgroup int sg_offsets[32];

    const int x = in[gid];
    const int pre = simd_prefix_exclusive_sum(x);

    // The last active lane of each SIMD-group knows the SIMD-group total.
    const uint sg_size = min(32u, tpg - uint(sg) * 32u);
    if (uint(lane) == sg_size - 1) {
        sg_totals[sg] = pre + x;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    if (sg == 0) {
        const uint nsg = (tpg + 31) / 32;
        const int t = (lane < nsg) ? sg_totals[lane] : 0;
        const int off = simd_prefix_exclusive_sum(t);
        if (lane < nsg) {
            sg_offsets[lane] = off;
        }
        if (uint(lane) == nsg - 1) {
            block_totals[tg] = off + t;
        }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    const int base = sg_offsets[sg];
    excl[gid] = base + pre;
    incl[gid] = base + simd_prefix_inclusive_sum(x);
}
