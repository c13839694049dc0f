// Free functions overloaded on the address space of their pointer arguments (a loader that reads
// from device or threadgroup memory), and member functions overloaded on `this`'s address space.
#include <metal_stdlib>
using namespace metal;

METAL_FUNC float4 load4(const device float* p, uint i) { return float4(p[i], p[i + 1], p[i + 2], p[i + 3]); }
METAL_FUNC float4 load4(const threadgroup float* p, uint i) { return float4(p[i], p[i + 1], p[i + 2], p[i + 3]); }
METAL_FUNC float4 load4(const constant float* p, uint i) { return float4(p[i], p[i + 1], p[i + 2], p[i + 3]); }
METAL_FUNC float4 load4(const thread float* p, uint i) { return float4(p[i], p[i + 1], p[i + 2], p[i + 3]); }

template <typename T>
struct Accum {
  T total;
  void add(T v) thread { total += v; }
  void add(T v) threadgroup { total += v; }
  T get() const device { return total; }
  T get() const thread { return total; }
};

kernel void overload_loads(device const float* src [[buffer(0)]],
                           constant float* coeffs [[buffer(1)]],
                           device float* out [[buffer(2)]],
                           uint lid [[thread_index_in_threadgroup]]) {
  threadgroup float tile[128];
  tile[lid] = src[lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float local[4] = {1, 2, 3, 4};
  float4 v = load4(src, lid) + load4(tile, lid % 124) + load4(coeffs, 0) + load4(local, 0);
  Accum<float> a{0.0f};
  a.add(v.x);
  out[lid] = a.get() + v.y + v.z + v.w;
}
