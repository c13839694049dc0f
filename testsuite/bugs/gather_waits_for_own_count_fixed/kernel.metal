#include <metal_stdlib>
using namespace metal;

// Sums n floats: each threadgroup of 64 reduces its block and adds its sum to the total with an
// atomic add; no threadgroup waits for another.
kernel void gather_sum(
    device const float*   x       [[buffer(0)]],
    device float*         partial [[buffer(1)]],
    device atomic_uint*   done    [[buffer(2)]],
    device atomic_float*  out     [[buffer(3)]],
    uint gid  [[thread_position_in_grid]],
    uint tg   [[threadgroup_position_in_grid]],
    uint lid  [[thread_index_in_threadgroup]],
    uint sg   [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float sums[2];
    float s = simd_sum(x[gid]);
    if (lane == 0) sums[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid != 0) return;
    partial[tg] = sums[0] + sums[1];
    atomic_fetch_add_explicit(done, 1u, memory_order_relaxed);
    atomic_fetch_add_explicit(out, sums[0] + sums[1], memory_order_relaxed);
}
