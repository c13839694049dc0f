// Program-scope constants initialised with vector constructors, as SPIR-V Cross writes
// `constant uint3 gl_WorkGroupSize [[maybe_unused]] = uint3(64u, 1u, 1u);`, and constants computed
// from them. mslsim's vector constructors are not constexpr, so C++ initialises these at load time;
// mslsim once left them zero (nothing ran the initialisers), then refused them as global
// constructors. They are folded at compile time, as Apple's compiler does.
#include <metal_stdlib>
using namespace metal;

constant uint3 group_size [[maybe_unused]] = uint3(4u, 2u, 1u);
constant float2 offsets = float2(0.5f, 1.0f);
constant int table[3] = {int(group_size.x), 5, 6};
constant float4 splat = float4(2.0f);

kernel void folded_constants(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = float(group_size.x * group_size.y + table[i % 3]) + offsets.y + splat.w;
}
