// `constant` is read-only in MSL: a program-scope constant array binds to a `constant float *`
// parameter (ggml's best_index_int8(16, kvalues_iq4nl_f, x)); `const constant T&` arguments; a
// struct member read through offsetof; a `volatile coherent(system) device` buffer (MLX's
// fence.metal) and a volatile vector in a struct (SPIR-V Cross's coherent blocks).
#include <metal_stdlib>
using namespace metal;

constexpr constant static float table[4] = {1.f, 2.f, 3.f, 4.f};
static inline float pick(int n, constant float * val) { return val[n]; }

struct Params { int count; float scale; };
struct Block { float4 value; };

kernel void constant_tables(device float * dst [[buffer(0)]],
                            const constant Params& p [[buffer(1)]],
                            volatile coherent(system) device uint* flag [[buffer(2)]],
                            volatile device Block& block [[buffer(3)]],
                            uint i [[thread_position_in_grid]]) {
    dst[i] = pick(i & 3, table) * p.scale + float(offsetof(Params, scale));
    if (i == 0) {
        *flag = 1u;
        block.value = float4(20.0f);
        float4 seen = block.value;
        dst[0] += seen.x;
    }
}
