// No include at all: Apple's compiler knows the scalar and vector types and metal::thread_scope
// (MLX's fence.metal declares a thread_scope constant before it includes <metal_atomic>).
namespace metal {
constexpr constant metal::thread_scope thread_scope_everywhere = static_cast<thread_scope>(3);
}
kernel void builtin_types(device float4* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = float4(float(i), 1.0f, 2.0f, float(metal::thread_scope_everywhere));
}
