// Apple's internal builtins that MLX's headers call directly (bf16_math.h defines the bfloat
// overloads of the math and SIMD functions with them; steel/NAX code asks for the lane index and
// the SIMD width). Each maps onto the public function of the same name: the `mfast` flag
// (__METAL_FAST_MATH__ and friends, defined in base.h) selects accuracy on Apple GPUs, and mslsim
// evaluates fast and precise alike. Templates, so that they never collide with user overloads.
#pragma once
#include "base.h"
#include "vec.h"
#include "math.h"
#include "simd.h"
#include "hooks.h"

#define __MSLSIM_METAL1(name) \
  template <class X> METAL_FUNC auto __metal_##name(const X& x, bool = false) { return ::metal::name(x); }
#define __MSLSIM_METAL2(name)                                                    \
  template <class X, class Y> METAL_FUNC auto __metal_##name(const X& x, const Y& y, bool = false) { \
    return ::metal::name(x, y);                                                  \
  }
#define __MSLSIM_METAL3(name)                                                                    \
  template <class X, class Y, class Z>                                                           \
  METAL_FUNC auto __metal_##name(const X& x, const Y& y, const Z& z, bool = false) {             \
    return ::metal::name(x, y, z);                                                               \
  }
__MSLSIM_METAL1(fabs) __MSLSIM_METAL1(acos) __MSLSIM_METAL1(acosh) __MSLSIM_METAL1(asin)
__MSLSIM_METAL1(asinh) __MSLSIM_METAL1(atan) __MSLSIM_METAL1(atanh) __MSLSIM_METAL1(ceil)
__MSLSIM_METAL1(cos) __MSLSIM_METAL1(cosh) __MSLSIM_METAL1(cospi) __MSLSIM_METAL1(exp)
__MSLSIM_METAL1(exp10) __MSLSIM_METAL1(exp2) __MSLSIM_METAL1(floor) __MSLSIM_METAL1(fract)
__MSLSIM_METAL1(log) __MSLSIM_METAL1(log10) __MSLSIM_METAL1(log2) __MSLSIM_METAL1(rint)
__MSLSIM_METAL1(round) __MSLSIM_METAL1(rsqrt) __MSLSIM_METAL1(sin) __MSLSIM_METAL1(sinh)
__MSLSIM_METAL1(sinpi) __MSLSIM_METAL1(sqrt) __MSLSIM_METAL1(tan) __MSLSIM_METAL1(tanh)
__MSLSIM_METAL1(tanpi) __MSLSIM_METAL1(trunc) __MSLSIM_METAL1(cbrt) __MSLSIM_METAL1(saturate)
__MSLSIM_METAL2(atan2) __MSLSIM_METAL2(divide) __MSLSIM_METAL2(fmax) __MSLSIM_METAL2(fmin)
__MSLSIM_METAL2(fmod) __MSLSIM_METAL2(pow) __MSLSIM_METAL2(powr) __MSLSIM_METAL2(nextafter)
__MSLSIM_METAL2(copysign) __MSLSIM_METAL2(fdim)
__MSLSIM_METAL3(fma) __MSLSIM_METAL3(fmax3) __MSLSIM_METAL3(fmin3) __MSLSIM_METAL3(fmedian3)
#undef __MSLSIM_METAL1
#undef __MSLSIM_METAL2
#undef __MSLSIM_METAL3
// frexp takes the exponent by pointer, ldexp an int and the flag.
template <class X, class E> METAL_FUNC auto __metal_frexp(const X& x, thread E* e) { return ::metal::frexp(x, *e); }
template <class X, class K> METAL_FUNC auto __metal_ldexp(const X& x, const K& k, bool = false) { return ::metal::ldexp(x, k); }

// SIMD-group builtins; the call site reported in diagnostics is the caller of __metal_simd_*.
#define __MSLSIM_METAL_SIMD1(name)                                                      \
  template <class X> METAL_FUNC X __metal_simd_##name(X x, __MSLSIM_LOC_PARAMS) {      \
    return ::metal::simd_##name(x, __MSLSIM_LOC);                                       \
  }
#define __MSLSIM_METAL_SIMD2(name)                                                      \
  template <class X> METAL_FUNC X __metal_simd_##name(X x, ushort k, __MSLSIM_LOC_PARAMS) { \
    return ::metal::simd_##name(x, k, __MSLSIM_LOC);                                    \
  }
__MSLSIM_METAL_SIMD1(sum) __MSLSIM_METAL_SIMD1(product) __MSLSIM_METAL_SIMD1(max) __MSLSIM_METAL_SIMD1(min)
__MSLSIM_METAL_SIMD1(prefix_inclusive_sum) __MSLSIM_METAL_SIMD1(prefix_exclusive_sum)
__MSLSIM_METAL_SIMD1(prefix_inclusive_product) __MSLSIM_METAL_SIMD1(prefix_exclusive_product)
__MSLSIM_METAL_SIMD1(broadcast_first)
__MSLSIM_METAL_SIMD2(broadcast) __MSLSIM_METAL_SIMD2(shuffle) __MSLSIM_METAL_SIMD2(shuffle_up)
__MSLSIM_METAL_SIMD2(shuffle_down) __MSLSIM_METAL_SIMD2(shuffle_xor) __MSLSIM_METAL_SIMD2(shuffle_rotate_up)
__MSLSIM_METAL_SIMD2(shuffle_rotate_down)
#undef __MSLSIM_METAL_SIMD1
#undef __MSLSIM_METAL_SIMD2
// The bitwise reductions also take floating types (MLX's bf16_math.h instantiates simd_xor for
// bfloat through __metal_simd_xor(float)): they combine the bit patterns.
#define __MSLSIM_METAL_SIMD_BITS(name)                                                            \
  template <class X> METAL_FUNC X __metal_simd_##name(X x, __MSLSIM_LOC_PARAMS) {                \
    typedef typename ::metal::__vt<X>::elem E;                                                    \
    if constexpr (__is_integral(E)) {                                                             \
      return ::metal::simd_##name(x, __MSLSIM_LOC);                                               \
    } else {                                                                                      \
      typedef ::metal::conditional_t<sizeof(E) == 4, uint, ushort> U;                             \
      typedef ::metal::conditional_t<::metal::__vt<X>::veclike, ::metal::vec<U, ::metal::__vt<X>::n ? ::metal::__vt<X>::n : 2>, U> B; \
      return ::metal::as_type<X>(::metal::simd_##name(::metal::as_type<B>(x), __MSLSIM_LOC));     \
    }                                                                                             \
  }
__MSLSIM_METAL_SIMD_BITS(and) __MSLSIM_METAL_SIMD_BITS(or) __MSLSIM_METAL_SIMD_BITS(xor)
#undef __MSLSIM_METAL_SIMD_BITS
template <class X>
METAL_FUNC X __metal_simd_shuffle_and_fill_up(X x, X fill, ushort delta, ushort modulo, __MSLSIM_LOC_PARAMS) {
  return ::metal::simd_shuffle_and_fill_up(x, fill, delta, modulo, __MSLSIM_LOC);
}
template <class X>
METAL_FUNC X __metal_simd_shuffle_and_fill_down(X x, X fill, ushort delta, ushort modulo, __MSLSIM_LOC_PARAMS) {
  return ::metal::simd_shuffle_and_fill_down(x, fill, delta, modulo, __MSLSIM_LOC);
}
// The argument only selects the result type: __metal_get_simdgroup_size(ushort()).
template <class T> METAL_FUNC T __metal_get_simdgroup_size(T) { return T(32); }
template <class T> METAL_FUNC T __metal_get_thread_index_in_simdgroup(T) { return T(__mslsim_simd_lane()); }
