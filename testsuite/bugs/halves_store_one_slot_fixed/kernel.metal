#include <metal_stdlib>
using namespace metal;

// Folds each 64-element block in half: out[i] = x[i] + x[i + 32] for the block's first 32
// elements, one thread per output element (the threadgroup's first SIMD-group stores;
// the second has nothing to do). No barrier: each element has one writer.
kernel void fold_halves(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    if (lid < 32) out[tg * 32 + lid] = x[tg * 64 + lid] + x[tg * 64 + lid + 32];
}
