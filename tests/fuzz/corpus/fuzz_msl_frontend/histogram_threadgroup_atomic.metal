#include <metal_stdlib>
using namespace metal;

// Privatised histogram: each threadgroup counts into threadgroup atomics held in
// a [[threadgroup(0)]] buffer whose size (nbins * 4 bytes) is set at dispatch,
// then flushes its non-zero bins into the device histogram.
// Threadgroup memory is not zero-initialised, so it is cleared first.
kernel void histogram_threadgroup(
    device const uint*   values     [[buffer(0)]],
    device atomic_uint*  bins       [[buffer(1)]],
    constant uint&       nbins      [[buffer(2)]],
    threadgroup atomic_uint* local_bins [[threadgroup(0)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    for (uint b = lid; b < nbins; b += tpg) {
        atomic_store_explicit(&local_bins[b], 0u, memory_order_relaxed);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    atomic_fetch_add_explicit(&local_bins[values[gid]], 1u, memory_order_relaxed);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    for (uint b = lid; b < nbins; b += tpg) {
        const uint c = atomic_load_explicit(&local_bins[b], memory_order_relaxed);
        if (c != 0) {
            atomic_fetch_add_explicit(&bins[b], c, memory_order_relaxed);
        }
    }
}
