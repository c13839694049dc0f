// An argument disabled by a function constant (use_extra = false: the host binds nothing at
// buffer 2) is read into an object whose constructor ignores the value, and the object's only
// use is under the same constant. The loads are dead once the constant is known; Apple's compiler
// specialises and removes them (MLX's steel_gemm_fused.h does exactly this with addmm_params for
// every plain matmul). Expected: no finding, out = in * 2 (mslsim once reported out-of-bounds
// reads of buffer 2: the checks saw the loads before dead code was removed).
#include <metal_stdlib>
using namespace metal;

constant bool use_extra [[function_constant(0)]];

struct Params { int a; float alpha; float beta; };

struct Ignore {
  Ignore(float, float) thread {}
  float apply(float x) const thread { return x; }
};

struct Scale {
  const float alpha;
  Scale(float a, float) thread : alpha(a) {}
  float apply(float x) const thread { return x * alpha; }
};

kernel void dead_read(device const float* in [[buffer(0)]],
                      device float* out [[buffer(1)]],
                      constant Params* extra [[buffer(2), function_constant(use_extra)]],
                      uint i [[thread_position_in_grid]]) {
  const Ignore plain(extra->alpha, extra->beta);
  const Scale scaled(extra->alpha, extra->beta);
  float v = in[i] * 2.0f;
  out[i] = use_extra ? scaled.apply(v) : plain.apply(v);
}
