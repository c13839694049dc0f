// Relational functions: NaN/Inf classification, select with bool vectors, all/any.
#include <metal_relational>
#include <metal_stdlib>
using namespace metal;

kernel void classify(device const float4* x [[buffer(0)]],
                     device uint* flags [[buffer(1)]],
                     device float4* cleaned [[buffer(2)]],
                     uint i [[thread_position_in_grid]]) {
  float4 v = x[i];
  bool4 nan = isnan(v), inf = isinf(v), fin = isfinite(v), nrm = isnormal(v), neg = signbit(v);
  bool4 ord = isordered(v, v * 2.0f), unord = isunordered(v, v);
  uint f = 0;
  f |= any(nan) ? 1u : 0u;
  f |= all(fin) ? 2u : 0u;
  f |= any(inf) ? 4u : 0u;
  f |= all(nrm) ? 8u : 0u;
  f |= any(neg && ord) ? 16u : 0u;
  f |= all(not(unord)) ? 32u : 0u;
  flags[i] = f;
  cleaned[i] = select(v, float4(0.0f), nan || inf);
}

kernel void select_scalar(device const half* x [[buffer(0)]], device half* out [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  half v = x[i];
  out[i] = select(v, half(0), isnan(v)) + select(half(1), half(-1), signbit(v));
  int2 a = int2(1, 2), b = int2(3, 4);
  int2 s = select(a, b, a < int2(2));
  out[i] += half(s.x + s.y) + (isinf(v) ? 1.0h : 0.0h) + (isfinite(v) ? 0.0h : 2.0h);
}
