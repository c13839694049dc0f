#include <metal_stdlib>
using namespace metal;

// Each of the 32 threads of one threadgroup sums the elements lid, lid + 32, ... of
// n = 65536 floats.
// BUG: the index is a ushort, which wraps around to lid before reaching n = 65536:
// the loop never ends.
kernel void strided_sum(
    device const float* x   [[buffer(0)]],
    device float*       out [[buffer(1)]],
    constant uint&      n   [[buffer(2)]],
    ushort lid [[thread_index_in_threadgroup]],
    ushort tpg [[threads_per_threadgroup]])
{
    float s = 0.0f;
    for (ushort i = lid; i < n; i += tpg) {
        s += x[i];
    }
    out[lid] = s;
}
