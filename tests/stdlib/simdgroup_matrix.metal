// simdgroup_matrix tests (driven by test_stdlib.py, which computes the expected values in numpy).
// The driver compiles one kernel per run (-D ONLY -D K_<name>) to keep compile time down.
#include <metal_stdlib>
using namespace metal;

// Lane layout: thread_elements() after a load, store after writing thread_elements(), the
// diagonal constructor, make_filled_simdgroup_matrix, and MLX's reinterpret_cast pattern.
#if !defined(ONLY) || defined(K_sg_layout)
kernel void sg_layout(device const float* src [[buffer(0)]], device float* elems [[buffer(1)]],
                      device float* stored [[buffer(2)]], device float* diag [[buffer(3)]],
                      device half* filled [[buffer(4)]], device float* mlx [[buffer(5)]],
                      uint lane [[thread_index_in_simdgroup]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, src);
  elems[2 * lane] = m.thread_elements()[0];
  elems[2 * lane + 1] = m.thread_elements()[1];
  simdgroup_float8x8 n;
  n.thread_elements() = float2(float(2 * lane), float(2 * lane + 1));
  simdgroup_store(n, stored);
  simdgroup_float8x8 d = simdgroup_float8x8(3.0f);
  simdgroup_store(d, diag);
  simdgroup_half8x8 f = make_filled_simdgroup_matrix<half, 8>(2.5h);
  simdgroup_store(f, filled);
  simdgroup_float8x8 r;
  reinterpret_cast<thread float2&>(r.thread_elements()) = float2(100.0f + lane, 200.0f + lane);
  float2 back = reinterpret_cast<thread float2&>(r.thread_elements());
  simdgroup_store(r, mlx, 16, ulong2(8, 0));  // right half of an 8x16 block
  mlx[16 * 8 + 2 * lane] = back.x;
  mlx[16 * 8 + 2 * lane + 1] = back.y;
}
#endif

// D = A*B + C (or A*B) with per-operand stride, origin and transpose from p[]:
// p[4*i + 0..3] = elements_per_row, origin.x, origin.y, transpose for A, B, C, D (i = 0..3),
// p[16 + i] = per-SIMD-group offset (elements) of operand i, p[20] = mode (0 mma, 1 multiply,
// 2 operator*).
template <class TA, class TB, class TC, class TD>
void mma_body(device const TA* A, device const TB* B, device const TC* C, device TD* D,
              constant uint* p, uint g) {
  simdgroup_matrix<TA, 8, 8> a;
  simdgroup_matrix<TB, 8, 8> b;
  simdgroup_matrix<TC, 8, 8> c;
  simdgroup_matrix<TD, 8, 8> d;
  simdgroup_load(a, A + g * p[16], p[0], ulong2(p[1], p[2]), p[3] != 0);
  simdgroup_load(b, B + g * p[17], p[4], ulong2(p[5], p[6]), p[7] != 0);
  simdgroup_load(c, C + g * p[18], p[8], ulong2(p[9], p[10]), p[11] != 0);
  if (p[20] == 0) simdgroup_multiply_accumulate(d, a, b, c);
  else simdgroup_multiply(d, a, b);
  simdgroup_store(d, D + g * p[19], p[12], ulong2(p[13], p[14]), p[15] != 0);
}
template <class T>
void mul_op_body(device const T* A, device const T* B, device T* D, constant uint* p, uint g) {
  simdgroup_matrix<T, 8, 8> a, b;
  simdgroup_load(a, A + g * p[16], p[0], ulong2(p[1], p[2]), p[3] != 0);
  simdgroup_load(b, B + g * p[17], p[4], ulong2(p[5], p[6]), p[7] != 0);
  simdgroup_matrix<T, 8, 8> d = a * b;
  simdgroup_store(d, D + g * p[19], p[12], ulong2(p[13], p[14]), p[15] != 0);
}

// Kernels are templates instantiated under host names (the front end reads address spaces from
// the source text, so kernel signatures are not written inside macros).
template <class TA, class TB, class TC, class TD>
kernel void mma_kernel(device const TA* A [[buffer(0)]], device const TB* B [[buffer(1)]],
                       device const TC* C [[buffer(2)]], device TD* D [[buffer(3)]],
                       constant uint* p [[buffer(4)]], uint sg [[simdgroup_index_in_threadgroup]],
                       uint nsg [[simdgroups_per_threadgroup]], uint tg [[threadgroup_position_in_grid]]) {
  mma_body<TA, TB, TC, TD>(A, B, C, D, p, tg * nsg + sg);
}
#if !defined(ONLY) || defined(K_mma_f32)
template [[host_name("mma_f32")]] kernel decltype(mma_kernel<float, float, float, float>) mma_kernel<float, float, float, float>;
#endif
#if !defined(ONLY) || defined(K_mma_f16)
template [[host_name("mma_f16")]] kernel decltype(mma_kernel<half, half, half, half>) mma_kernel<half, half, half, half>;
#endif
#if !defined(ONLY) || defined(K_mma_bf16)
template [[host_name("mma_bf16")]] kernel decltype(mma_kernel<bfloat, bfloat, bfloat, bfloat>) mma_kernel<bfloat, bfloat, bfloat, bfloat>;
#endif
// ggml's mixed precision: half (or half and float) inputs, float accumulator.
#if !defined(ONLY) || defined(K_mma_f16_f32acc)
template [[host_name("mma_f16_f32acc")]] kernel decltype(mma_kernel<half, half, float, float>) mma_kernel<half, half, float, float>;
#endif
#if !defined(ONLY) || defined(K_mma_f16_f32_mixed)
template [[host_name("mma_f16_f32_mixed")]] kernel decltype(mma_kernel<half, float, float, float>) mma_kernel<half, float, float, float>;
#endif
#if !defined(ONLY) || defined(K_mma_f32acc_to_f16)
template [[host_name("mma_f32acc_to_f16")]] kernel decltype(mma_kernel<half, half, float, half>) mma_kernel<half, half, float, half>;
#endif
#if !defined(ONLY) || defined(K_mma_bf16_f32acc)
template [[host_name("mma_bf16_f32acc")]] kernel decltype(mma_kernel<bfloat, bfloat, float, float>) mma_kernel<bfloat, bfloat, float, float>;
#endif

template <class T>
kernel void mulop_kernel(device const T* A [[buffer(0)]], device const T* B [[buffer(1)]],
                         device const T* C [[buffer(2)]], device T* D [[buffer(3)]],
                         constant uint* p [[buffer(4)]], uint sg [[simdgroup_index_in_threadgroup]],
                         uint nsg [[simdgroups_per_threadgroup]], uint tg [[threadgroup_position_in_grid]]) {
  mul_op_body<T>(A, B, D, p, tg * nsg + sg);
}
#if !defined(ONLY) || defined(K_mulop_f32)
template [[host_name("mulop_f32")]] kernel decltype(mulop_kernel<float>) mulop_kernel<float>;
#endif
#if !defined(ONLY) || defined(K_mulop_f16)
template [[host_name("mulop_f16")]] kernel decltype(mulop_kernel<half>) mulop_kernel<half>;
#endif

// Through threadgroup memory (ggml's pattern): 2 SIMD-groups, each multiplies its 8x8 tile of
// A (16x8) by B (8x8), accumulating onto a filled matrix, and stores to a threadgroup tile.
#if !defined(ONLY) || defined(K_mma_threadgroup)
kernel void mma_threadgroup(device const half* A [[buffer(0)]], device const half* B [[buffer(1)]],
                            device float* D [[buffer(2)]], uint tid [[thread_index_in_threadgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup half ta[16 * 8];
  threadgroup half tb[8 * 8];
  threadgroup float td[16 * 8];
  for (uint i = tid; i < 16 * 8; i += 64) ta[i] = A[i];
  for (uint i = tid; i < 8 * 8; i += 64) tb[i] = B[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_half8x8 a, b;
  simdgroup_load(a, ta + 64 * sg);
  simdgroup_load(b, tb, 8, 0, false);
  simdgroup_float8x8 c = make_filled_simdgroup_matrix<float, 8, 8>(1.0f);
  simdgroup_multiply_accumulate(c, a, b, c);
  simdgroup_store(c, td + 64 * sg);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint i = tid; i < 16 * 8; i += 64) D[i] = td[i];
}
#endif
