#include <metal_stdlib>
using namespace metal;

// Sums n floats: each threadgroup of 64 reduces its block, and threadgroup 0 adds up the block
// sums of the others once they have all published theirs.
// BUG: threadgroup 0 spins until `done` counts every threadgroup, but it never counts itself, so it
// waits for ever. (Waiting for ntg - 1 would not do either: Metal does not promise that
// threadgroups run at the same time or in any order, and threadgroup 0 may take the GPU while the
// others wait for it to finish.)
kernel void gather_sum(
    device const float* x       [[buffer(0)]],
    device float*       partial [[buffer(1)]],
    device atomic_uint* done    [[buffer(2)]],
    device float*       out     [[buffer(3)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint ntg  [[threadgroups_per_grid]],
    uint lid  [[thread_index_in_threadgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float sums[2];
    float s = simd_sum(x[gid]);
    if (lane == 0) sums[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid != 0) return;
    if (tg != 0) {
        partial[tg] = sums[0] + sums[1];
        atomic_fetch_add_explicit(done, 1u, memory_order_relaxed);
        return;
    }
    while (atomic_load_explicit(done, memory_order_relaxed) < ntg) {
    }
    float total = sums[0] + sums[1];
    for (uint i = 1; i < ntg; ++i) total += partial[i];
    out[0] = total;
}
