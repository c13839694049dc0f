// Kernels inside namespaces (host names ns::name) and a derived (non-virtual) helper struct.
#include <metal_stdlib>
using namespace metal;

namespace activations {
struct Base {
  float scale;
  float apply(float x) const thread { return x * scale; }
};
struct Silu : Base {
  float operator()(float x) const thread { return apply(x) / (1.0f + exp(-x)); }
};

kernel void silu(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                 uint gid [[thread_position_in_grid]]) {
  Silu s;
  s.scale = 1.0f;
  out[gid] = s(in[gid]);
}
}  // namespace activations

namespace activations::gated {
kernel void swiglu(device const float2* in [[buffer(0)]], device float* out [[buffer(1)]],
                   uint gid [[thread_position_in_grid]]) {
  float2 v = in[gid];
  out[gid] = v.x / (1.0f + exp(-v.x)) * v.y;
}
}  // namespace activations::gated
