#include <metal_stdlib>
using namespace metal;

// MLX's `view` copies int32 bytes through bool arrays (a non-contiguous array viewed as bool_ is
// made contiguous with its bool copy kernel) and expects every byte back, as Apple's GPUs give it.
kernel void copy_bools(device const uchar* bytes [[buffer(0)]], device bool* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  device const bool* in = reinterpret_cast<device const bool*>(bytes);
  out[i] = in[i];
}
