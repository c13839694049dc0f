#include <metal_stdlib>
using namespace metal;

// Neighbouring lanes swap their values (lane l takes the value of lane l ^ 1)
// through a device scratch buffer;
// a simdgroup_barrier(mem_device) orders each lane's store before its neighbour's read.
kernel void swap_pairs(
    device const float* x       [[buffer(0)]],
    device float*       scratch [[buffer(1)]],
    device float*       out     [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    scratch[gid] = 2.0f * x[gid];
    simdgroup_barrier(mem_flags::mem_device);
    out[gid] = scratch[gid ^ 1];
}
