// Compile-only check: the example kernel of the library brief must parse and compile to object code.
#include <metal_stdlib>
using namespace metal;
template <typename T>
kernel void k(device const T* a [[buffer(0)]], device T* out [[buffer(1)]], constant uint& n [[buffer(2)]],
              uint3 gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]],
              ushort2 tpos [[thread_position_in_threadgroup]]) {
  threadgroup float tile[32];
  float4 v = float4(1.0f, float2(a[0], 2), 3);
  v.xy = v.wz * 2.0f + float2(tile[lane]);
  tile[lane] = simd_sum(v.x) + dot(v, v) + metal::exp(v.y) + precise::sqrt(v.z) + fast::tanh(v.w);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  half h = half(a[0]) * 2.0f16;
  out[gid.x] = T(tile[lane ^ 1]) + T(h) + T(as_type<float>(as_type<uint>(v.x)));
}
template kernel void k<float>(device const float*, device float*, constant uint&, uint3, uint, ushort2);
template kernel void k<half>(device const half*, device half*, constant uint&, uint3, uint, ushort2);
template kernel void k<bfloat>(device const bfloat*, device bfloat*, constant uint&, uint3, uint, ushort2);

kernel void atomics(device atomic_uint* cnt [[buffer(0)]], device atomic<float>* acc [[buffer(1)]],
                    device const float* x [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
  threadgroup atomic_uint local;
  if (gid == 0) atomic_store_explicit(&local, 0, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
  atomic_fetch_add_explicit(&local, 1, memory_order_relaxed);
  atomic_fetch_max_explicit(cnt, gid, memory_order_relaxed);
  atomic_fetch_add_explicit(acc, x[gid], memory_order_relaxed);
  uint expected = 0;
  atomic_compare_exchange_weak_explicit(cnt, &expected, 5u, memory_order_relaxed, memory_order_relaxed);
  simd_vote vt = simd_ballot(x[gid] > 0);
  if (uint64_t(vt) != 0 && vt.any() && simd_all(true) && simd_is_first()) atomic_fetch_or_explicit(cnt, 1u, memory_order_relaxed);
}

kernel void reduce(device const half4* in [[buffer(0)]], device float* out [[buffer(1)]],
                   uint gid [[thread_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],
                   uint lane [[thread_index_in_simdgroup]]) {
  threadgroup float partial[32];
  half4 h = in[gid];
  float4 f = float4(h);
  float s = simd_sum(f.x + f.y) + simd_max(f.z) + quad_sum(f.w);
  s += simd_prefix_exclusive_sum(s) + simd_shuffle_down(s, 16) + simd_shuffle_xor(s, 1u);
  half4 hs = simd_shuffle(h, ushort(lane ^ 3));
  float2 f2 = simd_shuffle_and_fill_up(f.xy, float2(0), 1);
  if (lane == 0) partial[sg] = s + float(hs.x) + f2.y;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = partial[0] + float(numeric_limits<half>::max()) + numeric_limits<float>::infinity();
}
