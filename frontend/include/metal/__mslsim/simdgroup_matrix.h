// <metal_simdgroup_matrix>: simdgroup_matrix<T,8,8> for T = float, half, bfloat.
//
// Each lane holds two elements of the 8x8 matrix, in the lane layout MLX (steel/gemm/mma.h) relies
// on for thread_elements(): for lane l, q = l/4, row = (q & 4) + (l/2) % 4, first column
// = (q & 2)*2 + (l % 2)*2; the lane holds (row, col) and (row, col+1). The spec leaves the mapping
// unspecified; with this one, code that mixes thread_elements() with load/store agrees.
//
// simdgroup_load/simdgroup_store touch only the calling lane's own two elements (the hardware's
// per-lane memory pattern, so race and bounds checks see what the GPU would do). matrix_origin is
// (x = column, y = row) in the *memory* matrix, also for transposed accesses: the 8x8 block starts
// at src + origin.y*elements_per_row + origin.x and transpose swaps the roles of its rows and
// columns. The multiplications gather the other lanes' elements with one SIMD-group exchange of all
// operand fragments, compute every result element in float as fma(a[r][k], b[k][c], acc) for
// k = 0..7 starting from acc = c[r][c] (or 0), and round once to the destination type. With every
// lane active the simulator does that arithmetic (__mslsim_simdgroup_mma, the same steps): a
// product costs it about what one lane's share costs in the kernel's own code.
// All operations must run in uniform control flow within the SIMD-group (as on the GPU).
#pragma once
#include "simd.h"

namespace metal {
template <class T, int Cols, int Rows = Cols> struct simdgroup_matrix {
  static_assert(Cols == 8 && Rows == 8, "mslsim: only 8x8 simdgroup matrices exist");
  static_assert(__is_same(T, float) || __is_same(T, half) || __is_same(T, bfloat),
                "simdgroup_matrix element type must be float, half or bfloat");
  typedef T value_type;
  vec<T, 2> __e;

  simdgroup_matrix() = default;
  // Diagonal matrix with `d` on the diagonal (zero elsewhere).
  template <class S, enable_if_t<__is_scalar_v<S>, int> = 0> simdgroup_matrix(S d) {
    unsigned l = __mslsim_simd_lane();
    unsigned row = __row(l), col = __col(l);
    __e[0] = row == col ? T(d) : T(0);
    __e[1] = row == col + 1 ? T(d) : T(0);
  }
  vec<T, 2>& thread_elements() { return __e; }
  const vec<T, 2>& thread_elements() const { return __e; }

  static unsigned __row(unsigned l) { return ((l >> 2) & 4u) + ((l >> 1) & 3u); }
  static unsigned __col(unsigned l) { return ((l >> 2) & 2u) * 2u + (l & 1u) * 2u; }
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;
typedef simdgroup_matrix<bfloat, 8, 8> simdgroup_bfloat8x8;

template <class T, int Cols, int Rows = Cols, class S>
METAL_FUNC simdgroup_matrix<T, Cols, Rows> make_filled_simdgroup_matrix(const S value) {
  simdgroup_matrix<T, Cols, Rows> m;
  m.__e = vec<T, 2>(T(value));
  return m;
}

template <class T, int C, int R>
METAL_FUNC void simdgroup_load(thread simdgroup_matrix<T, C, R>& d, const type_identity_t<T>* src,
                               ulong elements_per_row = C, vec<typename __dep<T, ulong>::type, 2> matrix_origin = 0,
                               bool transpose_matrix = false) {
  unsigned l = __mslsim_simd_lane();
  ulong row = simdgroup_matrix<T, C, R>::__row(l), col = simdgroup_matrix<T, C, R>::__col(l);
  src += matrix_origin.y * elements_per_row + matrix_origin.x;
  if (transpose_matrix) {
    d.__e[0] = src[col * elements_per_row + row];
    d.__e[1] = src[(col + 1) * elements_per_row + row];
  } else {
    const T* p = src + row * elements_per_row + col;
    d.__e[0] = p[0];
    d.__e[1] = p[1];
  }
}
template <class T, int C, int R>
METAL_FUNC void simdgroup_store(const thread simdgroup_matrix<T, C, R>& a, type_identity_t<T>* dst,
                                ulong elements_per_row = C, vec<typename __dep<T, ulong>::type, 2> matrix_origin = 0,
                                bool transpose_matrix = false) {
  unsigned l = __mslsim_simd_lane();
  ulong row = simdgroup_matrix<T, C, R>::__row(l), col = simdgroup_matrix<T, C, R>::__col(l);
  dst += matrix_origin.y * elements_per_row + matrix_origin.x;
  if (transpose_matrix) {
    dst[col * elements_per_row + row] = a.__e[0];
    dst[(col + 1) * elements_per_row + row] = a.__e[1];
  } else {
    T* p = dst + row * elements_per_row + col;
    p[0] = a.__e[0];
    p[1] = a.__e[1];
  }
}

// A lane's operands for the exchange, in float (exact for half and bfloat): its elements of A and B
// and of the accumulator (zero for a plain product: fma(a, b, +0.0) rounds as the first step of
// a product does).
struct __sgmm_in { float a0, a1, b0, b1, c0, c1; };
struct __sgmm_out { float x, y; };  // not float2: a non-dependent vec here would be instantiated by every include
// The calling lane's two elements of a*b (+ c), in float.
template <bool Acc, class Ta, class Tb, class Tc>
METAL_FUNC __sgmm_out __sgmm(const simdgroup_matrix<Ta, 8, 8>& a, const simdgroup_matrix<Tb, 8, 8>& b,
                         const vec<Tc, 2>& c, const char* f, unsigned ln, unsigned cl) {
  const float c0 = Acc ? float(c[0]) : 0.0f, c1 = Acc ? float(c[1]) : 0.0f;
  __MSLSIM_LANES(__sgmm_in, L);
  __exchange(L, __sgmm_in{float(a.__e[0]), float(a.__e[1]), float(b.__e[0]), float(b.__e[1]), c0, c1}, f, ln, cl);
  // Every lane taking part (as MSL requires): the simulator multiplies, natively, and in vector
  // lanes once for the SIMD-group. The same arithmetic as below.
  if (L.mask == ~0u) {
    __UINT64_TYPE__ r = __mslsim_simdgroup_mma(L.v, L.me);
    return __sgmm_out{__builtin_bit_cast(float, unsigned(r)), __builtin_bit_cast(float, unsigned(r >> 32))};
  }
  // Some lanes inactive: their elements are undefined values (reported by the SIMD check).
  unsigned row = simdgroup_matrix<Ta, 8, 8>::__row(L.me), col = simdgroup_matrix<Ta, 8, 8>::__col(L.me);
  // Lane holding element (r, c0) of any operand, c0 even: invert the layout.
  auto lane_of = [](unsigned r, unsigned c0) {
    return ((r & 4u) << 2) | ((c0 & 4u) << 1) | ((r & 3u) << 1) | ((c0 >> 1) & 1u);
  };
  float acc0 = c0, acc1 = c1;
  for (unsigned k = 0; k < 8; ++k) {
    __sgmm_in fa = L.at(lane_of(row, k & ~1u)), fb = L.at(lane_of(k, col));
    float ra = (k & 1u) ? fa.a1 : fa.a0;
    acc0 = __builtin_fmaf(ra, fb.b0, acc0);
    acc1 = __builtin_fmaf(ra, fb.b1, acc1);
  }
  return __sgmm_out{acc0, acc1};
}

// d = a*b + c. Element types may differ (ggml: half or float a/b with float c/d).
template <class Td, class Ta, class Tb, class Tc>
METAL_FUNC void simdgroup_multiply_accumulate(thread simdgroup_matrix<Td, 8, 8>& d,
                                              const thread simdgroup_matrix<Ta, 8, 8>& a,
                                              const thread simdgroup_matrix<Tb, 8, 8>& b,
                                              const thread simdgroup_matrix<Tc, 8, 8>& c,
                                              __MSLSIM_LOC_PARAMS) {
  __sgmm_out r = __sgmm<true>(a, b, c.__e, __MSLSIM_LOC);
  d.__e[0] = Td(r.x);
  d.__e[1] = Td(r.y);
}
// d = a*b.
template <class Td, class Ta, class Tb>
METAL_FUNC void simdgroup_multiply(thread simdgroup_matrix<Td, 8, 8>& d, const thread simdgroup_matrix<Ta, 8, 8>& a,
                                   const thread simdgroup_matrix<Tb, 8, 8>& b, __MSLSIM_LOC_PARAMS) {
  __sgmm_out r = __sgmm<false>(a, b, a.__e, __MSLSIM_LOC);
  d.__e[0] = Td(r.x);
  d.__e[1] = Td(r.y);
}
template <class T>
METAL_FUNC simdgroup_matrix<T, 8, 8> operator*(const thread simdgroup_matrix<T, 8, 8>& a,
                                               const thread simdgroup_matrix<T, 8, 8>& b) {
  simdgroup_matrix<T, 8, 8> d;
  simdgroup_multiply(d, a, b);
  return d;
}
}  // namespace metal
