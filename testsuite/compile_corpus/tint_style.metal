// Tint (WGSL) style output: designated initializers, a module-scope struct of workgroup
// variables passed by pointer, and [[max_total_threads_per_threadgroup(1)]].
#include <metal_stdlib>
using namespace metal;

struct tint_module_vars_struct {
  threadgroup atomic_uint* counter;
  device uint* out;
};

struct Pair {
  uint a;
  uint b;
};

void compute_main_inner(uint local_invocation_index, tint_module_vars_struct tint_module_vars) {
  if (local_invocation_index == 0u) atomic_store_explicit(tint_module_vars.counter, 0u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  Pair p = Pair{.a = local_invocation_index, .b = 1u};
  atomic_fetch_add_explicit(tint_module_vars.counter, p.b, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  tint_module_vars.out[local_invocation_index] = atomic_load_explicit(tint_module_vars.counter, memory_order_relaxed) + p.a;
}

[[max_total_threads_per_threadgroup(1)]]
kernel void compute_main(uint local_invocation_index [[thread_index_in_threadgroup]],
                         device uint* out [[buffer(0)]]) {
  threadgroup atomic_uint v;
  tint_module_vars_struct const tint_module_vars = tint_module_vars_struct{.counter = (&v), .out = out};
  compute_main_inner(local_invocation_index, tint_module_vars);
}
