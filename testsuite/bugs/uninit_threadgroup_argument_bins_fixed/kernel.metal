#include <metal_stdlib>
using namespace metal;

// Privatised histogram into nbins = 100 threadgroup atomics held in a [[threadgroup(0)]]
// buffer sized at dispatch (400 bytes), threadgroups of 64 threads.
// Clearing and flushing stride over all bins.
kernel void histogram_tg_arg(
    device const uint*       values     [[buffer(0)]],
    device atomic_uint*      bins       [[buffer(1)]],
    constant uint&           nbins      [[buffer(2)]],
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
        atomic_fetch_add_explicit(&bins[b], atomic_load_explicit(&local_bins[b], memory_order_relaxed),
                                  memory_order_relaxed);
    }
}
