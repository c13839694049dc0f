#include <metal_stdlib>
using namespace metal;

// Privatised 16-bin histogram of bytes: each threadgroup of 128 counts into threadgroup
// bins, then threads 0..15 add the bins to the device histogram atomically.
// BUG: the threadgroup bins are incremented with a plain `+= 1`, so threads with the
// same value lose each other's increments.
kernel void histogram16(
    device const uchar* values [[buffer(0)]],
    device atomic_uint* bins   [[buffer(1)]],
    uint   gid [[thread_position_in_grid]],
    ushort lid [[thread_index_in_threadgroup]])
{
    threadgroup uint local_bins[16];
    if (lid < 16) {
        local_bins[lid] = 0;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    local_bins[values[gid]] += 1;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid < 16) {
        atomic_fetch_add_explicit(&bins[lid], local_bins[lid], memory_order_relaxed);
    }
}
