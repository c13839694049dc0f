#include <metal_stdlib>
using namespace metal;

// Folds each 64-element block in half: out[i] = x[i] + x[i + 32] for the block's first 32
// elements. BUG: both SIMD-groups store into the same 32 slots (lid % 32), each its own half,
// with no barrier and no atomics: a write-write race between two threads of one threadgroup,
// exactly two writers per slot, the first of them the slot's first access in the dispatch.
kernel void fold_halves(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    uint lid [[thread_index_in_threadgroup]],
    uint tg  [[threadgroup_position_in_grid]])
{
    out[tg * 32 + lid % 32] = x[tg * 64 + lid];
}
