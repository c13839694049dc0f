#include <metal_stdlib>
using namespace metal;

// Subtracts the threadgroup's pivot element (index `pivot` = 40 in the threadgroup of 64)
// from every half element.
// The pivot's thread publishes it through threadgroup memory.
kernel void subtract_pivot(
    device const half* x     [[buffer(0)]],
    device half*       out   [[buffer(1)]],
    constant ushort&   pivot [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    const half v = x[gid];
    threadgroup half shared_pivot;
    if (lid == pivot) {
        shared_pivot = v;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const half p = shared_pivot;
    out[gid] = v - p;
}
