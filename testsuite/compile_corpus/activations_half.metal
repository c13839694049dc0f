// Activation functions in half precision: GELU (tanh and erf-free), SiLU, sigmoid, softplus,
// hard-swish, all with h literals.
#include <metal_stdlib>
using namespace metal;

METAL_FUNC half sigmoid(half x) { return 1.0h / (1.0h + exp(-x)); }

kernel void activations(device const half* x [[buffer(0)]],
                        device half4* out [[buffer(1)]],
                        uint i [[thread_position_in_grid]]) {
  half v = x[i];
  half gelu = 0.5h * v * (1.0h + tanh(0.79788456h * (v + 0.044715h * v * v * v)));
  half silu = v * sigmoid(v);
  half softplus = v > 20.0h ? v : log(1.0h + exp(v));
  half hswish = v * clamp(v + 3.0h, 0.0h, 6.0h) / 6.0h;
  out[i] = half4(gelu, silu, softplus, hswish);
}
