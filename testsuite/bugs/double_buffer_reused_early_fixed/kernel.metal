#include <metal_stdlib>
using namespace metal;

// All-reduce over a threadgroup of 256: simd_sum gives every lane its SIMD-group's sum,
// then three butterfly steps (partners lid ^ 32, ^ 64, ^ 128: always another
// SIMD-group) combine the 8 SIMD-group sums in two threadgroup buffers used in turn,
// with one barrier per step; every thread ends up with the block sum.
// After each step the two buffers swap roles.
kernel void allreduce_butterfly(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_index_in_threadgroup]])
{
    threadgroup float ping[256];
    threadgroup float pong[256];
    threadgroup float* src = ping;
    threadgroup float* dst = pong;
    src[lid] = simd_sum(x[gid]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint mask = 32; mask < 256; mask <<= 1) {
        const float mine = src[lid];
        const float other = src[lid ^ mask];
        dst[lid] = mine + other;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        threadgroup float* t = src;
        src = dst;
        dst = t;
    }
    out[gid] = src[lid];
}
