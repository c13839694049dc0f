// Embedding lookup: gather rows by index with uint indices, bounds-clamped, 4-wide copies.
#include <metal_stdlib>
using namespace metal;

kernel void embed(device const uint* ids [[buffer(0)]],
                  device const float4* table [[buffer(1)]],
                  device float4* out [[buffer(2)]],
                  constant uint2& shape [[buffer(3)]],
                  uint2 gid [[thread_position_in_grid]]) {
  uint token = gid.y, col = gid.x;
  uint row = min(ids[token], shape.x - 1);
  out[token * shape.y + col] = table[row * shape.y + col];
}
