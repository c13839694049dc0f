#include <metal_stdlib>
using namespace metal;

// Subtracts the threadgroup's pivot element (index `pivot` = 40 in the threadgroup of 64)
// from every half element.
// BUG: simd_broadcast(v, pivot) treats the threadgroup index 40 as a lane: lane 40
// does not exist in a 32-wide SIMD-group.
kernel void subtract_pivot(
    device const half* x     [[buffer(0)]],
    device half*       out   [[buffer(1)]],
    constant ushort&   pivot [[buffer(2)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    const half v = x[gid];
    const half p = simd_broadcast(v, pivot);
    out[gid] = v - p;
}
