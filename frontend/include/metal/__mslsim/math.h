// MSL math, common, integer, relational and geometric functions (namespace metal, plus the
// metal::fast and metal::precise namespaces, which for now name the same implementations).
//
// Every function is a template over scalars, vectors, swizzles and packed vectors so that
// (1) user code and MLX can add non-template overloads (MLX's bf16_math.h defines metal::exp(bfloat)
// etc.; a non-template function with the same signature as ours would be a redefinition), and
// (2) mixed arguments resolve the way MSL code expects: a vector argument decides the type and
// scalars are splatted; for scalars, equal types win, a floating type beats an integer one (so
// max(x, 0) is float for a float x), otherwise the usual arithmetic conversions apply.
// half and bfloat are computed in float and rounded once per call.
#pragma once
#include "vec.h"

namespace metal {
template <class A, class B, bool = __vt<A>::veclike, bool = __vt<B>::veclike> struct __common2 {};
template <class A, class B> struct __common2<A, B, true, true>
    : __enable_if<__is_same(__vec_of<A>, __vec_of<B>), __vec_of<A>> {};
template <class A, class B> struct __common2<A, B, true, false> : __enable_if<__is_scalar_v<B>, __vec_of<A>> {};
template <class A, class B> struct __common2<A, B, false, true> : __enable_if<__is_scalar_v<A>, __vec_of<B>> {};
template <class A, class B> struct __common2<A, B, false, false>
    : __enable_if<__is_scalar_v<A> && __is_scalar_v<B>,
                conditional_t<__is_same(A, B), A,
                              conditional_t<__is_fp_v<A> && !__is_fp_v<B>, A,
                                            conditional_t<__is_fp_v<B> && !__is_fp_v<A>, B,
                                                          decltype(declval<A>() + declval<B>())>>>> {};
template <class A, class B> using __common_t = typename __common2<A, B>::type;
template <class A, class B, class C> using __common3_t = __common_t<__common_t<A, B>, C>;

// Floating result type: floating scalars/vectors stay; integer scalars compute in float.
template <class X, class V = __vec_of<X>, class E = typename __vt<X>::elem>
using __fp_t = enable_if_t<__is_fp_v<E> || (!__vt<X>::veclike && __is_integral(E)),
                           conditional_t<__vt<X>::veclike || __is_fp_v<E>, V, float>>;
template <class X, class V = __vec_of<X>, class E = typename __vt<X>::elem>
using __int_t = enable_if_t<__is_integral(E) && !__is_same(E, bool), V>;
template <class X, class V = __vec_of<X>> using __arith_t = enable_if_t<__is_scalar_v<typename __vt<X>::elem>, V>;

template <class V, class F> METAL_FUNC V __map1(const V& a, F f) {
  if constexpr (__vt<V>::n == 0) return f(a);
  else { V r; for (int i = 0; i < V::__n; ++i) r.__e[i] = f(a.__e[i]); return r; }
}
template <class V, class F> METAL_FUNC V __map2(const V& a, const V& b, F f) {
  if constexpr (__vt<V>::n == 0) return f(a, b);
  else { V r; for (int i = 0; i < V::__n; ++i) r.__e[i] = f(a.__e[i], b.__e[i]); return r; }
}
template <class V, class F> METAL_FUNC V __map3(const V& a, const V& b, const V& c, F f) {
  if constexpr (__vt<V>::n == 0) return f(a, b, c);
  else { V r; for (int i = 0; i < V::__n; ++i) r.__e[i] = f(a.__e[i], b.__e[i], c.__e[i]); return r; }
}
// Elementwise predicate: bool for scalars, vec<bool,N> for vectors.
template <class V> using __bool_of = conditional_t<__vt<V>::veclike, vec<bool, __vt<V>::n ? __vt<V>::n : 2>, bool>;
template <class V, class F> METAL_FUNC __bool_of<V> __pred(const V& a, F f) {
  if constexpr (__vt<V>::n == 0) return f(a);
  else { __bool_of<V> r; for (int i = 0; i < V::__n; ++i) r.__e[i] = f(a.__e[i]); return r; }
}

// ---------------------------------------------------------------- floating-point functions
// An integer scalar argument takes the non-template float overload, a conversion, as with Apple's
// non-template overloads: a user's template of the same name for integers (SPIR-V Cross's
// `sign(T)` for integral T) is then the better match instead of an ambiguous one.
#define __MSLSIM_F1(name, expr)                                                          \
  template <class X, class V = __fp_t<X>, enable_if_t<!__is_integral(X), int> = 0>      \
  METAL_FUNC V name(const X& x_) {                                                       \
    typedef typename __vt<V>::elem E;                                                    \
    return __map1(V(x_), [](E e) { float x = float(e); return E(expr); });               \
  }                                                                                      \
  METAL_FUNC float name(float x) { typedef float E; return E(expr); }
#define __MSLSIM_F2(name, expr)                                                          \
  template <class X, class Y, class V = __fp_t<__common_t<X, Y>>>                       \
  METAL_FUNC V name(const X& x_, const Y& y_) {                                          \
    typedef typename __vt<V>::elem E;                                                    \
    return __map2(V(x_), V(y_), [](E a, E b) { float x = float(a), y = float(b); return E(expr); }); \
  }
#define __MSLSIM_F3(name, expr)                                                          \
  template <class X, class Y, class Z, class V = __fp_t<__common3_t<X, Y, Z>>>          \
  METAL_FUNC V name(const X& x_, const Y& y_, const Z& z_) {                             \
    typedef typename __vt<V>::elem E;                                                    \
    return __map3(V(x_), V(y_), V(z_), [](E a, E b, E c) {                               \
      float x = float(a), y = float(b), z = float(c); return E(expr); });               \
  }

// A double result rounded once to E (bfloat: to float rounding to odd first, so that the second
// rounding cannot go wrong).
template <class E> METAL_FUNC E __from_f64(double d) {
  if constexpr (__is_same(E, bfloat)) {
    float f = float(d);
    if (d == d && !__builtin_isinf(f) && double(f) != d) {
      unsigned u = __builtin_bit_cast(unsigned, f);
      if (!(u & 1u)) f = __builtin_bit_cast(float, __builtin_fabs(d) > __builtin_fabs(double(f)) ? u + 1u : u - 1u);
    }
    return bfloat(f);
  } else return E(d);
}
// fract(x) = fmin(x - floor(x), the largest E below 1); NaN stays NaN.
template <class E> METAL_FUNC E __fract1(E e) {
  float x = float(e);
  if (x != x) return e;
  E r = E(x - __builtin_floorf(x));
  typedef conditional_t<sizeof(E) == 4, unsigned, unsigned short> B;
  if (float(r) >= 1.0f) r = __builtin_bit_cast(E, B(__builtin_bit_cast(B, E(1.0f)) - 1u));
  return r;
}
// sinpi, cospi, tanpi: the argument is reduced exactly (fmod is exact) to [-1/2, 1/2] before
// multiplying by pi in double, so integers and half-integers give exact zeros and ones (signs as C23).
METAL_FUNC double __sinpi_red(double r) {  // r in (-2, 2): sin(pi r)
  if (r > 1) r -= 2; else if (r < -1) r += 2;
  if (r > 0.5) r = 1 - r; else if (r < -0.5) r = -1 - r;
  return __builtin_sin(3.14159265358979323846 * r);
}
METAL_FUNC double __sinpi_d(float x) {
  if (__builtin_isinf(x)) return double(x - x);
  double s = __sinpi_red(__builtin_fmod(double(x), 2.0));
  return s == 0 ? __builtin_copysign(0.0, double(x)) : s;
}
METAL_FUNC double __cospi_d(float x) {
  if (__builtin_isinf(x)) return double(x - x);
  double r = __builtin_fabs(__builtin_fmod(double(x), 2.0));
  if (r > 1) r = 2 - r;
  return __builtin_sin(3.14159265358979323846 * (0.5 - r)) + 0.0;  // cos(pi r); +0 at half-integers
}
METAL_FUNC double __tanpi_d(float x) { return __sinpi_d(x) / __cospi_d(x); }
// fma of half/bfloat: the product is exact in double; the sum is rounded to odd (TwoSum) and then
// once to E, which gives the correctly rounded result (a float fma then a second rounding does not).
template <class E> METAL_FUNC E __fma1(E a, E b, E c) {
  if constexpr (__is_same(E, float)) return __builtin_fmaf(a, b, c);
  else {
    double p = double(float(a)) * double(float(b)), q = double(float(c));
    double s = p + q, bb = s - p, err = (p - (s - bb)) + (q - bb);
    if (err != 0 && !__builtin_isinf(s) && s == s) {
      unsigned long u = __builtin_bit_cast(unsigned long, s);
      if (!(u & 1ul)) s = __builtin_bit_cast(double, (err > 0) == (s > 0) ? u + 1ul : u - 1ul);
    }
    return __from_f64<E>(s);
  }
}
METAL_FUNC float __sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == x ? x : 0.0f; }
METAL_FUNC float __median3(float x, float y, float z) {
  // NaN is treated as missing data, as MSL's fmedian3 specifies.
  return __builtin_fmaxf(__builtin_fminf(x, y), __builtin_fminf(__builtin_fmaxf(x, y), z));
}

__MSLSIM_F1(fabs, __builtin_fabsf(x))
__MSLSIM_F1(floor, __builtin_floorf(x))
__MSLSIM_F1(ceil, __builtin_ceilf(x))
__MSLSIM_F1(round, __builtin_roundf(x))
__MSLSIM_F1(rint, __builtin_rintf(x))
__MSLSIM_F1(trunc, __builtin_truncf(x))
__MSLSIM_F1(sqrt, __builtin_sqrtf(x))
__MSLSIM_F1(rsqrt, __from_f64<E>(1.0 / __builtin_sqrt(double(x))))  // correctly rounded
__MSLSIM_F1(cbrt, __builtin_cbrtf(x))
__MSLSIM_F1(exp, __builtin_expf(x))
__MSLSIM_F1(exp2, __builtin_exp2f(x))
__MSLSIM_F1(exp10, __builtin_powf(10.0f, x))
__MSLSIM_F1(log, __builtin_logf(x))
__MSLSIM_F1(log2, __builtin_log2f(x))
__MSLSIM_F1(log10, __builtin_log10f(x))
__MSLSIM_F1(sin, __builtin_sinf(x))
__MSLSIM_F1(cos, __builtin_cosf(x))
__MSLSIM_F1(tan, __builtin_tanf(x))
__MSLSIM_F1(asin, __builtin_asinf(x))
__MSLSIM_F1(acos, __builtin_acosf(x))
__MSLSIM_F1(atan, __builtin_atanf(x))
__MSLSIM_F1(sinh, __builtin_sinhf(x))
__MSLSIM_F1(cosh, __builtin_coshf(x))
__MSLSIM_F1(tanh, __builtin_tanhf(x))
__MSLSIM_F1(asinh, __builtin_asinhf(x))
__MSLSIM_F1(acosh, __builtin_acoshf(x))
__MSLSIM_F1(atanh, __builtin_atanhf(x))
__MSLSIM_F1(sinpi, __from_f64<E>(__sinpi_d(x)))
__MSLSIM_F1(cospi, __from_f64<E>(__cospi_d(x)))
__MSLSIM_F1(tanpi, __from_f64<E>(__tanpi_d(x)))
__MSLSIM_F1(saturate, __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f))
__MSLSIM_F1(sign, __sign(x))
__MSLSIM_F2(fmin, __builtin_fminf(x, y))
__MSLSIM_F2(fmax, __builtin_fmaxf(x, y))
__MSLSIM_F2(fmod, __builtin_fmodf(x, y))
__MSLSIM_F2(fdim, x > y ? x - y : (x != x || y != y) ? x + y : 0.0f)
__MSLSIM_F2(pow, __builtin_powf(x, y))
__MSLSIM_F2(powr, __builtin_powf(x, y))
__MSLSIM_F2(atan2, __builtin_atan2f(x, y))
__MSLSIM_F2(copysign, __builtin_copysignf(x, y))
__MSLSIM_F2(divide, x / y)
__MSLSIM_F2(step, y < x ? 0.0f : 1.0f)
__MSLSIM_F3(mix, x + (y - x) * z)
__MSLSIM_F3(fmin3, __builtin_fminf(__builtin_fminf(x, y), z))
__MSLSIM_F3(fmax3, __builtin_fmaxf(__builtin_fmaxf(x, y), z))
__MSLSIM_F3(fmedian3, __median3(x, y, z))
__MSLSIM_F3(smoothstep, [](float t) { return t * t * (3.0f - 2.0f * t); }(
                            __builtin_fminf(__builtin_fmaxf((z - x) / (y - x), 0.0f), 1.0f)))
#undef __MSLSIM_F1
#undef __MSLSIM_F2
#undef __MSLSIM_F3

template <class X, class V = __fp_t<X>> METAL_FUNC V fract(const X& x) {
  typedef typename __vt<V>::elem E;
  return __map1(V(x), [](E e) { return __fract1(e); });
}
template <class X, class Y, class Z, class V = __fp_t<__common3_t<X, Y, Z>>>
METAL_FUNC V fma(const X& x, const Y& y, const Z& z) {
  typedef typename __vt<V>::elem E;
  return __map3(V(x), V(y), V(z), [](E a, E b, E c) { return __fma1(a, b, c); });
}
template <class X, class V = __fp_t<X>> METAL_FUNC V sincos(const X& x, thread V& cosval) {
  cosval = cos(x);
  return sin(x);
}
template <class X, class V = __fp_t<X>> METAL_FUNC V modf(const X& x, thread V& intval) {
  intval = trunc(x);
  typedef typename __vt<V>::elem E;
  // The fraction has the sign of x, also when it is zero (modf(-3) = -0).
  return __map2(V(x), intval, [](E a, E i) {
    return E(__builtin_copysignf(__builtin_isinf(float(a)) ? 0.0f : float(a) - float(i), float(a))); });
}
template <class X, class V = __fp_t<X>, class I = conditional_t<__vt<V>::veclike, vec<int, __vt<V>::n ? __vt<V>::n : 2>, int>>
METAL_FUNC V frexp(const X& x, thread I& e) {
  V v(x), r;
  typedef typename __vt<V>::elem E;
  if constexpr (__vt<V>::n == 0) { int k; r = E(__builtin_frexpf(float(v), &k)); e = k; }
  else for (int i = 0; i < V::__n; ++i) { int k; r.__e[i] = E(__builtin_frexpf(float(v.__e[i]), &k)); e.__e[i] = k; }
  return r;
}
template <class X, class V = __fp_t<X>, class I = conditional_t<__vt<V>::veclike, vec<int, __vt<V>::n ? __vt<V>::n : 2>, int>>
METAL_FUNC I ilogb(const X& x) {
  V v(x);
  I r;
  if constexpr (__vt<V>::n == 0) r = __builtin_ilogbf(float(v));
  else for (int i = 0; i < V::__n; ++i) r.__e[i] = __builtin_ilogbf(float(v.__e[i]));
  return r;
}
template <class X, class K, class V = __fp_t<X>> METAL_FUNC V ldexp(const X& x, const K& k) {
  V v(x), r;
  typedef typename __vt<V>::elem E;
  if constexpr (__vt<V>::n == 0) r = E(__builtin_ldexpf(float(v), int(k)));
  else for (int i = 0; i < V::__n; ++i) {
    int ki;
    if constexpr (__vt<K>::veclike) ki = int(__vec_of<K>(k).__e[i]); else ki = int(k);
    r.__e[i] = E(__builtin_ldexpf(float(v.__e[i]), ki));
  }
  return r;
}
// nextafter must step in the element's own format, not in float.
template <class E> METAL_FUNC E __nextafter1(E x, E y) {
  if constexpr (__is_same(E, float)) return __builtin_nextafterf(x, y);
  else {
    float fx = float(x), fy = float(y);
    if (fx != fx || fy != fy) return E(fx + fy);
    if (fx == fy) return y;
    unsigned short b = __builtin_bit_cast(unsigned short, x);
    if ((b & 0x7fff) == 0) b = (unsigned short)((fy < 0 ? 0x8000 : 0) | 1);
    else if ((fx < fy) == ((b & 0x8000) == 0)) ++b;
    else --b;
    return __builtin_bit_cast(E, b);
  }
}
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>> METAL_FUNC V nextafter(const X& x, const Y& y) {
  typedef typename __vt<V>::elem E;
  return __map2(V(x), V(y), [](E a, E b) { return __nextafter1(a, b); });
}

// ---------------------------------------------------------------- functions for floats and integers
template <class E> METAL_FUNC E __min1(E a, E b) {
  if constexpr (__is_fp_v<E>) return E(__builtin_fminf(float(a), float(b)));
  else return b < a ? b : a;
}
template <class E> METAL_FUNC E __max1(E a, E b) {
  if constexpr (__is_fp_v<E>) return E(__builtin_fmaxf(float(a), float(b)));
  else return a < b ? b : a;
}
template <class X, class Y, class V = __arith_t<__common_t<X, Y>>> METAL_FUNC V min(const X& x, const Y& y) {
  typedef typename __vt<V>::elem E;
  return __map2(V(x), V(y), [](E a, E b) { return __min1(a, b); });
}
template <class X, class Y, class V = __arith_t<__common_t<X, Y>>> METAL_FUNC V max(const X& x, const Y& y) {
  typedef typename __vt<V>::elem E;
  return __map2(V(x), V(y), [](E a, E b) { return __max1(a, b); });
}
template <class X, class Y, class Z, class V = __arith_t<__common3_t<X, Y, Z>>>
METAL_FUNC V clamp(const X& x, const Y& lo, const Z& hi) {
  typedef typename __vt<V>::elem E;
  return __map3(V(x), V(lo), V(hi), [](E a, E l, E h) { return __min1(__max1(a, l), h); });
}
template <class X, class Y, class Z, class V = __arith_t<__common3_t<X, Y, Z>>>
METAL_FUNC V min3(const X& x, const Y& y, const Z& z) {
  typedef typename __vt<V>::elem E;
  return __map3(V(x), V(y), V(z), [](E a, E b, E c) { return __min1(__min1(a, b), c); });
}
template <class X, class Y, class Z, class V = __arith_t<__common3_t<X, Y, Z>>>
METAL_FUNC V max3(const X& x, const Y& y, const Z& z) {
  typedef typename __vt<V>::elem E;
  return __map3(V(x), V(y), V(z), [](E a, E b, E c) { return __max1(__max1(a, b), c); });
}
template <class X, class Y, class Z, class V = __arith_t<__common3_t<X, Y, Z>>>
METAL_FUNC V median3(const X& x, const Y& y, const Z& z) {
  typedef typename __vt<V>::elem E;
  return __map3(V(x), V(y), V(z), [](E a, E b, E c) { return __max1(__min1(a, b), __min1(__max1(a, b), c)); });
}
template <class X, class V = __arith_t<X>> METAL_FUNC V abs(const X& x) {
  typedef typename __vt<V>::elem E;
  return __map1(V(x), [](E e) {
    if constexpr (__is_fp_v<E>) return E(__builtin_fabsf(float(e)));
    else if constexpr (__is_signed(E)) return E(e < 0 ? E(0) - e : e);
    else return e;
  });
}

// ---------------------------------------------------------------- integer functions
template <class E> using __uint_of = make_unsigned_t<E>;
template <class E> METAL_FUNC E __clz1(E x) {
  typedef __uint_of<E> U;
  U u = U(x);
  if (u == 0) return E(sizeof(E) * 8);
  if constexpr (sizeof(E) == 8) return E(__builtin_clzl(u));
  else return E(__builtin_clz(unsigned(u)) - int(32 - sizeof(E) * 8));
}
template <class E> METAL_FUNC E __ctz1(E x) {
  typedef __uint_of<E> U;
  U u = U(x);
  if (u == 0) return E(sizeof(E) * 8);
  if constexpr (sizeof(E) == 8) return E(__builtin_ctzl(u));
  else return E(__builtin_ctz(unsigned(u)));
}
template <class E> METAL_FUNC E __mulhi1(E a, E b) {
  if constexpr (sizeof(E) == 8) {
    typedef conditional_t<__is_signed(E), __int128, unsigned __int128> W;
    return E((W(a) * W(b)) >> 64);
  } else {
    typedef conditional_t<__is_signed(E), long, unsigned long> W;
    return E((W(a) * W(b)) >> (sizeof(E) * 8));
  }
}
template <class E> METAL_FUNC E __addsat1(E a, E b) {
  E r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return __is_signed(E) && b < 0 ? numeric_limits<E>::min() : numeric_limits<E>::max();
}
template <class E> METAL_FUNC E __subsat1(E a, E b) {
  E r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return __is_signed(E) && b > 0 ? numeric_limits<E>::min() : (__is_signed(E) ? numeric_limits<E>::max() : E(0));
}
// a*b+c saturated, computed exactly (the product does not wrap first).
template <class E> METAL_FUNC E __madsat1(E a, E b, E c) {
  typedef conditional_t<__is_signed(E), __int128, unsigned __int128> W;
  W r = W(a) * W(b) + W(c);
  if (r > W(numeric_limits<E>::max())) return numeric_limits<E>::max();
  if (__is_signed(E) && r < W(numeric_limits<E>::min())) return numeric_limits<E>::min();
  return E(r);
}
template <class E> METAL_FUNC E __rev1(E x) {
  typedef __uint_of<E> U;
  U u = U(x);
  if constexpr (sizeof(E) == 1) return E(__builtin_bitreverse8(u));
  else if constexpr (sizeof(E) == 2) return E(__builtin_bitreverse16(u));
  else if constexpr (sizeof(E) == 4) return E(__builtin_bitreverse32(u));
  else return E(__builtin_bitreverse64(u));
}
template <class E> METAL_FUNC E __rot1(E x, E s) {
  typedef __uint_of<E> U;
  constexpr unsigned bits = sizeof(E) * 8;
  unsigned k = unsigned(U(s)) % bits;
  U u = U(x);
  return k ? E(U(u << k) | U(u >> (bits - k))) : x;
}

#define __MSLSIM_I1(name, expr) \
  template <class X, class V = __int_t<X>> METAL_FUNC V name(const X& x_) { \
    typedef typename __vt<V>::elem E; return __map1(V(x_), [](E x) { return E(expr); }); }
#define __MSLSIM_I2(name, expr) \
  template <class X, class Y, class V = __int_t<__common_t<X, Y>>> METAL_FUNC V name(const X& x_, const Y& y_) { \
    typedef typename __vt<V>::elem E; return __map2(V(x_), V(y_), [](E x, E y) { return E(expr); }); }
#define __MSLSIM_I3(name, expr) \
  template <class X, class Y, class Z, class V = __int_t<__common3_t<X, Y, Z>>> \
  METAL_FUNC V name(const X& x_, const Y& y_, const Z& z_) { \
    typedef typename __vt<V>::elem E; return __map3(V(x_), V(y_), V(z_), [](E x, E y, E z) { return E(expr); }); }
__MSLSIM_I1(clz, __clz1(x))
__MSLSIM_I1(ctz, __ctz1(x))
__MSLSIM_I1(popcount, sizeof(E) == 8 ? __builtin_popcountl(__uint_of<E>(x)) : __builtin_popcount(unsigned(__uint_of<E>(x))))
__MSLSIM_I1(reverse_bits, __rev1(x))
__MSLSIM_I2(mulhi, __mulhi1(x, y))
__MSLSIM_I2(addsat, __addsat1(x, y))
__MSLSIM_I2(subsat, __subsat1(x, y))
__MSLSIM_I2(hadd, (x >> 1) + (y >> 1) + (x & y & 1))
__MSLSIM_I2(rhadd, (x >> 1) + (y >> 1) + ((x | y) & 1))
__MSLSIM_I2(rotate, __rot1(x, y))
__MSLSIM_I2(mul24, x * y)
__MSLSIM_I3(mad24, x * y + z)
__MSLSIM_I3(madhi, __mulhi1(x, y) + z)
__MSLSIM_I3(madsat, __madsat1(x, y, z))
#undef __MSLSIM_I1
#undef __MSLSIM_I2
#undef __MSLSIM_I3
// |x - y| as the unsigned type of the same width (no overflow).
template <class X, class Y, class V = __int_t<__common_t<X, Y>>> METAL_FUNC auto absdiff(const X& x, const Y& y) {
  typedef typename __vt<V>::elem E;
  typedef __uint_of<E> U;
  typedef conditional_t<__vt<V>::veclike, vec<U, __vt<V>::n ? __vt<V>::n : 2>, U> R;
  V a(x), b(y);
  if constexpr (__vt<V>::n == 0) return R(a > b ? U(U(a) - U(b)) : U(U(b) - U(a)));
  else { R r; for (int i = 0; i < V::__n; ++i) r.__e[i] = a.__e[i] > b.__e[i] ? U(U(a.__e[i]) - U(b.__e[i])) : U(U(b.__e[i]) - U(a.__e[i])); return r; }
}
template <class X, class V = __int_t<X>> METAL_FUNC V extract_bits(const X& x, uint offset, uint bits) {
  typedef typename __vt<V>::elem E;
  return __map1(V(x), [offset, bits](E e) {
    constexpr uint W = sizeof(E) * 8;
    if (bits == 0) return E(0);
    typedef __uint_of<E> U;
    U u = U(U(e) << (W - offset - bits));  // field's top bit to the top
    if constexpr (__is_signed(E)) return E(E(u) >> (W - bits));
    else return E(u >> (W - bits));
  });
}
template <class X, class Y, class V = __int_t<__common_t<X, Y>>>
METAL_FUNC V insert_bits(const X& base, const Y& ins, uint offset, uint bits) {
  typedef typename __vt<V>::elem E;
  return __map2(V(base), V(ins), [offset, bits](E b, E i) {
    typedef __uint_of<E> U;
    if (bits == 0) return b;
    U mask = U((bits >= sizeof(E) * 8 ? U(~U(0)) : U((U(1) << bits) - 1)) << offset);
    return E((U(b) & U(~mask)) | (U(U(i) << offset) & mask));
  });
}

// ---------------------------------------------------------------- relational
#define __MSLSIM_P1(name, expr)                                                          \
  template <class X, class V = __fp_t<X>> METAL_FUNC __bool_of<V> name(const X& x_) {   \
    typedef typename __vt<V>::elem E;                                                    \
    return __pred(V(x_), [](E e) { float x = float(e); return bool(expr); });            \
  }
__MSLSIM_P1(isnan, x != x)
__MSLSIM_P1(isinf, __builtin_isinf(x))
__MSLSIM_P1(isfinite, __builtin_isfinite(x))
// half subnormals are normal floats: compare with the element type's own smallest normal.
__MSLSIM_P1(isnormal, __builtin_isfinite(x) && __builtin_fabsf(x) >= float(numeric_limits<E>::min()))
__MSLSIM_P1(signbit, __builtin_signbit(x))
#undef __MSLSIM_P1
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>> METAL_FUNC __bool_of<V> isordered(const X& x, const Y& y) {
  return !isnan(x) && !isnan(y);
}
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>> METAL_FUNC __bool_of<V> isunordered(const X& x, const Y& y) {
  return isnan(x) || isnan(y);
}
METAL_FUNC bool all(bool b) { return b; }
METAL_FUNC bool any(bool b) { return b; }
template <class X, enable_if_t<__vt<X>::veclike, int> = 0> METAL_FUNC bool all(const X& x) {
  __vec_of<X> v(x);
  bool r = true;
  for (int i = 0; i < __vt<X>::n; ++i) r = r && bool(v.__e[i]);
  return r;
}
template <class X, enable_if_t<__vt<X>::veclike, int> = 0> METAL_FUNC bool any(const X& x) {
  __vec_of<X> v(x);
  bool r = false;
  for (int i = 0; i < __vt<X>::n; ++i) r = r || bool(v.__e[i]);
  return r;
}
// select(a, b, c): c ? b : a, component-wise when c is a bool vector.
template <class A, class B, class C, class V = __common_t<A, B>>
METAL_FUNC V select(const A& a, const B& b, const C& c) {
  if constexpr (__vt<C>::veclike) {
    static_assert(__vt<V>::n == __vt<C>::n, "select: condition and values differ in size");
    V x(a), y(b), r;
    __vec_of<C> m(c);
    for (int i = 0; i < __vt<V>::n; ++i) r.__e[i] = m.__e[i] ? y.__e[i] : x.__e[i];
    return r;
  } else {
    return bool(c) ? V(b) : V(a);
  }
}

// ---------------------------------------------------------------- geometric
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>, enable_if_t<__vt<V>::veclike, int> = 0>
METAL_FUNC typename __vt<V>::elem dot(const X& x, const Y& y) {
  V a(x), b(y);
  float s = float(a.__e[0]) * float(b.__e[0]);
  for (int i = 1; i < __vt<V>::n; ++i) s += float(a.__e[i]) * float(b.__e[i]);
  return typename __vt<V>::elem(s);
}
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>, enable_if_t<__vt<V>::n == 3, int> = 0>
METAL_FUNC V cross(const X& x, const Y& y) {
  V a(x), b(y);
  return V(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
template <class X, class V = __fp_t<X>> METAL_FUNC typename __vt<V>::elem length_squared(const X& x) {
  if constexpr (__vt<V>::veclike) return dot(V(x), V(x));
  else return V(x) * V(x);
}
template <class X, class V = __fp_t<X>> METAL_FUNC typename __vt<V>::elem length(const X& x) {
  if constexpr (__vt<V>::veclike) {
    V v(x);
    float s = 0.0f;
    for (int i = 0; i < __vt<V>::n; ++i) s += float(v.__e[i]) * float(v.__e[i]);
    return typename __vt<V>::elem(__builtin_sqrtf(s));
  } else return abs(V(x));
}
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>>
METAL_FUNC typename __vt<V>::elem distance(const X& x, const Y& y) { return length(V(x) - V(y)); }
template <class X, class Y, class V = __fp_t<__common_t<X, Y>>>
METAL_FUNC typename __vt<V>::elem distance_squared(const X& x, const Y& y) { return length_squared(V(x) - V(y)); }
template <class X, class V = __fp_t<X>> METAL_FUNC V normalize(const X& x) {
  V v(x);
  typedef typename __vt<V>::elem E;
  float l = float(length(v));
  return __map1(v, [l](E e) { return E(float(e) / l); });
}
template <class N, class I, class R, class V = __fp_t<__common3_t<N, I, R>>>
METAL_FUNC V faceforward(const N& n, const I& i, const R& nref) {
  return dot(V(nref), V(i)) < 0 ? V(n) : -V(n);
}
template <class I, class N, class V = __fp_t<__common_t<I, N>>> METAL_FUNC V reflect(const I& i, const N& n) {
  V iv(i), nv(n);
  return iv - (typename __vt<V>::elem)2 * dot(nv, iv) * nv;
}
template <class I, class N, class E, class V = __fp_t<__common_t<I, N>>>
METAL_FUNC V refract(const I& i, const N& n, E eta) {
  V iv(i), nv(n);
  float d = float(dot(nv, iv)), e = float(eta);
  float k = 1.0f - e * e * (1.0f - d * d);
  if (k < 0.0f) return V(0);
  return iv * typename __vt<V>::elem(e) - nv * typename __vt<V>::elem(e * d + __builtin_sqrtf(k));
}

// fast:: and precise:: select accuracy on Apple GPUs; the simulator evaluates both precisely.
#define __MSLSIM_MATH_NAMES                                                                          \
  using metal::fabs; using metal::abs; using metal::floor; using metal::ceil; using metal::round;     \
  using metal::rint; using metal::trunc; using metal::fract; using metal::sqrt; using metal::rsqrt;   \
  using metal::cbrt; using metal::exp; using metal::exp2; using metal::exp10; using metal::log;      \
  using metal::log2; using metal::log10; using metal::sin; using metal::cos; using metal::tan;       \
  using metal::asin; using metal::acos; using metal::atan; using metal::sinh; using metal::cosh;     \
  using metal::tanh; using metal::asinh; using metal::acosh; using metal::atanh; using metal::sinpi; \
  using metal::cospi; using metal::tanpi; using metal::saturate; using metal::sign;                  \
  using metal::fmin; using metal::fmax; using metal::fmod; using metal::fdim; using metal::pow;      \
  using metal::powr; using metal::atan2; using metal::copysign; using metal::divide;                 \
  using metal::step; using metal::fma; using metal::mix; using metal::fmin3; using metal::fmax3;     \
  using metal::fmedian3; using metal::smoothstep; using metal::sincos; using metal::modf;           \
  using metal::frexp; using metal::ilogb; using metal::ldexp; using metal::nextafter; using metal::min;                  \
  using metal::max; using metal::clamp; using metal::min3; using metal::max3; using metal::median3;  \
  using metal::isnan; using metal::isinf; using metal::isfinite; using metal::signbit;               \
  using metal::dot; using metal::cross; using metal::length; using metal::length_squared;           \
  using metal::distance; using metal::distance_squared; using metal::normalize;
namespace fast { __MSLSIM_MATH_NAMES }
namespace precise { __MSLSIM_MATH_NAMES }
#undef __MSLSIM_MATH_NAMES
}  // namespace metal
