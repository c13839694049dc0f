#include <metal_stdlib>
using namespace metal;

// out = concatenate(a, b) with a in buffer 0 (na = 600) and b in buffer 1 (nb = 400).
// BUG: the split test is `gid <= na`, so thread na reads a[na], one past the end of
// buffer 0 (where buffer 1 may well follow in memory, hiding the bug on a GPU).
kernel void concat(
    device const float* a   [[buffer(0)]],
    device const float* b   [[buffer(1)]],
    device float*       out [[buffer(2)]],
    constant uint&      na  [[buffer(3)]],
    constant uint&      nb  [[buffer(4)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= na + nb) {
        return;
    }
    float v;
    if (gid <= na) {
        v = a[gid];
    } else {
        v = b[gid - na];
    }
    out[gid] = v;
}
