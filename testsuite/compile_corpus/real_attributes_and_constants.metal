// corpus-args: --constant 1200=3 --constant 1201=true
// Attribute and function-constant forms of real libraries: a list glued to the parameter name
// (ggml: `uint3 tgpig[[threadgroup_position_in_grid]]`), program-scope function constants whose
// index is an expression (ggml: `[[function_constant(FC_UNARY + 0)]]`), a template-dependent
// max_total_threads_per_threadgroup (MLX gemv, sort, steel GEMM) and the quad-group count built-in.
#include <metal_stdlib>
using namespace metal;

#define FC_BASE 1200
constant short fc_op   [[function_constant(FC_BASE + 0)]];
constant bool  fc_bias [[function_constant(FC_BASE + 1)]];

kernel void glued_and_constants(device float * dst[[buffer(0)]],
                                uint3 tgpig[[threadgroup_position_in_grid]],
                                ushort tiisg[[thread_index_in_simdgroup]],
                                uint quads[[quadgroups_per_threadgroup]]) {
    dst[tgpig.x * 32 + tiisg] = fc_op + (fc_bias ? 10.0f : 0.0f) + quads;
}

template <typename T, int BM, int BN>
[[kernel, max_total_threads_per_threadgroup(BM * BN * 32)]] void tiled_limit(
    device T* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = T(BM * BN);
}
template [[host_name("tiled_limit_float_2_4")]] [[kernel]] decltype(tiled_limit<float, 2, 4>) tiled_limit<float, 2, 4>;
