// MSL vectors: vec<T,N> (N = 2, 3, 4), swizzles, packed_vec, operators, as_type.
//
// Layout is fixed by the simulator, which writes built-in arguments (uint3 tid, ...) straight into
// memory: vec<T,N> is trivially copyable, element i is at byte i*sizeof(T), and size = alignment =
// N*sizeof(T) except that 3-element vectors take the 4-element size. Clang's ext_vector_type has
// exactly that layout and optimises to SSE, so it is the storage; bool and bfloat, which cannot be
// ext-vector elements with the right layout/arithmetic, are stored as uchar (0/1) and ushort bits.
//
// The components x y z w are members of an anonymous union over the storage (so v.x is a real
// lvalue that templates deduce as T). Every other name is a property (`__declspec(property)`,
// enabled by -fdeclspec): `v.zy` calls a getter returning vec<T,2>, `v.zy = e` a setter, `v.zy += e`
// both, and the letters r g b a are properties over x y z w. Why properties rather than members:
// a swizzle is then a value of the swizzled vector's own type (templates deduce float2, not a
// proxy), an assignment through a swizzle with gaps (v.xz = v.zx) is exact, and a swizzle of a
// constexpr vector is a constant expression (a union member would be one the constructor did not
// write, which constant evaluation may not read). As with Apple's compiler, a swizzle is not an
// lvalue one can take the address of or bind a reference to.
//
// Operators are namespace-scope templates (found by ADL through vec and packed_vec) rather than
// hidden friends, so that they apply to packed vectors without instantiating anything.
#pragma once
#include "base.h"

namespace metal {
template <class T, int N> struct vec;
template <class T, int N> struct packed_vec;

template <class T> struct __store { typedef T type; };
template <> struct __store<bool> { typedef unsigned char type; };
template <> struct __store<bfloat> { typedef unsigned short type; };

// Vector traits for scalars (n = 0), vectors and packed vectors. Anything with a nested
// __vec_type is "vector-like" and converts implicitly to that vec.
template <class X, class = void> struct __vt {
  static constexpr int n = 0;
  static constexpr bool veclike = false;
  typedef X elem;
  typedef X type;
};
template <class X> struct __vt<X, __void_t<typename X::__vec_type>> {
  typedef typename X::__vec_type type;
  typedef typename type::__elem elem;
  static constexpr int n = type::__n;
  static constexpr bool veclike = true;
};
template <class X> using __vec_of = typename __vt<X>::type;
template <class X> constexpr bool __is_scalar_v = __is_arithmetic(X) || __is_same(X, bfloat);
template <class X> constexpr bool __is_fp_v = __is_floating_point(X) || __is_same(X, bfloat);
template <class X> constexpr int __ncomp = __vt<X>::n ? __vt<X>::n : (__is_scalar_v<X> ? 1 : 1000);

template <class T> constexpr typename __store<T>::type __to_store(T v) {
  if constexpr (__is_same(T, bfloat)) return v.__bits;
  else if constexpr (__is_same(T, bool)) return (unsigned char)v;
  else return v;
}
// Component k of a storage vector in a constant expression: Clang 16 evaluates a named component
// of a vector prvalue (the copy), not a subscript nor a component of a vector lvalue.
template <int N, class S> constexpr auto __lane(const S& v, int k) {
  if constexpr (N > 3) if (k == 3) return S(v).w;
  if constexpr (N > 2) if (k == 2) return S(v).z;
  return k == 1 ? S(v).y : S(v).x;
}
template <class T> constexpr T __from_store(typename __store<T>::type s) {
  if constexpr (__is_same(T, bfloat)) return bfloat::__from_bits(s);
  else if constexpr (__is_same(T, bool)) return s != 0;
  else return s;
}

template <class T, int N> struct __vbase;
// A vector built by a constructor has its components x, y, z, w as the active member of the union:
// in a constant expression (constexpr program-scope tables: `constexpr constant int3 S = {13, 19,
// 12};`) only the active member may be read, and the components are what constant expressions
// read (`threadgroup float tile[kTile.x * kTile.y]`, `S[1]`, `S.zy`). Everything else reads
// whatever member it likes at run time, where the union is the vector's bytes.
#define __MSLSIM_VBASE_COMMON                                          \
  typedef typename __store<T>::type __selem;                           \
  typedef __selem __storage __attribute__((ext_vector_type(N)));       \
  __vbase() = default;
#define __MSLSIM_VBASE_LANE(k) __from_store<T>(__lane<N>(v, k))
// What the generated swizzles call: a constant expression reads and writes the components (the
// vector's subscript, which reads them then), run time shuffles the storage.
#define __MSLSIM_VBASE_SWIZZLES                                                                   \
  constexpr const vec<T, N>& __self() const { return static_cast<const vec<T, N>&>(*this); }     \
  constexpr vec<T, N>& __self() { return static_cast<vec<T, N>&>(*this); }                       \
  template <int... I> constexpr vec<T, sizeof...(I)> __swizzle() const {                         \
    if (__builtin_is_constant_evaluated()) return vec<T, sizeof...(I)>(__self()[I]...);           \
    return __shuffle<I...>();                                                                     \
  }                                                                                               \
  template <int... I> vec<T, sizeof...(I)> __shuffle() const {                                   \
    vec<T, sizeof...(I)> r;                                                                       \
    r.__v = __builtin_shufflevector(this->__v, this->__v, I...);                                  \
    return r;                                                                                     \
  }                                                                                               \
  template <int... I> constexpr void __set_swizzle(const vec<T, sizeof...(I)>& v) {              \
    int k = 0;                                                                                    \
    if (__builtin_is_constant_evaluated()) ((__self()[I] = v[k++]), ...);                         \
    else ((this->__e[I] = v.__e[k++]), ...);                                                      \
  }
template <class T> struct __vbase<T, 2> {
  static constexpr int N = 2;
  __MSLSIM_VBASE_COMMON
  constexpr __vbase(__storage v) : x(__MSLSIM_VBASE_LANE(0)), y(__MSLSIM_VBASE_LANE(1)) {}
  union {
    __storage __v;
    T __e[2];
    struct { T x, y; };
  };
  __MSLSIM_VBASE_SWIZZLES
#include "swizzle2.inc"
};
template <class T> struct __vbase<T, 3> {
  static constexpr int N = 3;
  __MSLSIM_VBASE_COMMON
  constexpr __vbase(__storage v) : x(__MSLSIM_VBASE_LANE(0)), y(__MSLSIM_VBASE_LANE(1)), z(__MSLSIM_VBASE_LANE(2)) {}
  union {
    __storage __v;
    T __e[3];
    struct { T x, y, z; };
  };
  __MSLSIM_VBASE_SWIZZLES
#include "swizzle3.inc"
};
template <class T> struct __vbase<T, 4> {
  static constexpr int N = 4;
  __MSLSIM_VBASE_COMMON
  constexpr __vbase(__storage v)
      : x(__MSLSIM_VBASE_LANE(0)), y(__MSLSIM_VBASE_LANE(1)), z(__MSLSIM_VBASE_LANE(2)), w(__MSLSIM_VBASE_LANE(3)) {}
  union {
    __storage __v;
    T __e[4];
    struct { T x, y, z, w; };
  };
  __MSLSIM_VBASE_SWIZZLES
#include "swizzle4.inc"
};
#undef __MSLSIM_VBASE_COMMON
#undef __MSLSIM_VBASE_LANE
#undef __MSLSIM_VBASE_SWIZZLES

template <class T, int N> struct vec : __vbase<T, N> {
  static_assert(N >= 2 && N <= 4, "MSL vectors have 2, 3 or 4 elements");
  typedef T __elem;
  typedef vec __vec_type;
  static constexpr int __n = N;
  typedef typename __vbase<T, N>::__storage __storage;
  typedef T value_type;

  vec() = default;
  // Scalar -> vector (splat) is an implicit conversion in MSL.
  template <class S, enable_if_t<__is_scalar_v<S>, int> = 0>
  constexpr vec(S s) : __vbase<T, N>(__storage(__to_store(T(s)))) {}
  // A packed vector of the same element type converts implicitly.
  template <class X, enable_if_t<__is_same(X, packed_vec<T, N>), int> = 0>
  vec(const X& x) { for (int i = 0; i < N; ++i) this->__e[i] = x.__e[i]; }
  // Different element types need an explicit conversion, which converts values (not bits); a
  // constant expression converts component by component (`constexpr float3 F = float3(S)`).
  template <class X, enable_if_t<__vt<X>::veclike && __vt<X>::n == N &&
                                     !__is_same(typename __vt<X>::elem, T), int> = 0>
  explicit constexpr vec(const X& x) : __vbase<T, N>(__converted(__vec_of<X>(x))) {}
  // Components are consumed left to right from any mix of scalars and vectors. Fewer than N fill
  // the rest with zeros, as a braced list does for Clang's vectors (MLX's random.metal:
  // `uint4 ks = {a, b, c};`); Apple's compiler refuses that form with parentheses, mslsim does not.
  template <class A0, class A1, class... As,
            enable_if_t<__ncomp<A0> + __ncomp<A1> + (0 + ... + __ncomp<As>) <= N, int> = 0>
  constexpr vec(const A0& a0, const A1& a1, const As&... as) : __vbase<T, N>(__components(a0, a1, as...)) {}

  // In a constant expression, the active member: the components.
  constexpr T& operator[](int i) {
    if (__builtin_is_constant_evaluated()) return __component(*this, i);
    return this->__e[i];
  }
  constexpr const T& operator[](int i) const {
    if (__builtin_is_constant_evaluated()) return __component(*this, i);
    return this->__e[i];
  }
  template <class V> static constexpr auto& __component(V& v, int i) {
    if constexpr (N > 3) if (i == 3) return v.w;
    if constexpr (N > 2) if (i == 2) return v.z;
    return i == 1 ? v.y : v.x;
  }

  // `volatile device` vectors (SPIR-V Cross's coherent buffers). Templates, so that vec keeps its
  // trivial copy constructor and assignment: a template is never a copy constructor.
  template <class V, enable_if_t<__is_same(V, vec), int> = 0> vec(const volatile V& v) { this->__v = v.__v; }
  // Only from a vec: a wider template would compete with the copy assignment of plain vectors.
  template <class V, enable_if_t<__is_same(V, vec), int> = 0>
  volatile vec& operator=(const V& v) volatile {
    this->__v = v.__v;
    return *this;
  }

  // The components of scalars and vectors, left to right, zeros after them.
  template <class... A> static constexpr __storage __components(const A&... a) {
    typename __store<T>::type e[4] = {};
    int i = 0;
    (__put(e, i, a), ...);
    return __storage_of(e);
  }
  static constexpr __storage __storage_of(const typename __store<T>::type* e) {
    if constexpr (N == 2) return __storage{e[0], e[1]};
    else if constexpr (N == 3) return __storage{e[0], e[1], e[2]};
    else return __storage{e[0], e[1], e[2], e[3]};
  }
  template <class X> static constexpr void __put(typename __store<T>::type* e, int& i, const X& x) {
    if constexpr (__vt<X>::veclike) {
      typedef __vec_of<X> V;
      const V s(x);
      for (int k = 0; k < __vt<X>::n; ++k) e[i++] = __to_store(T(s[k]));
    } else {
      e[i++] = __to_store(T(x));
    }
  }
  template <class U> static constexpr __storage __converted(const vec<U, N>& s) {
    if (__builtin_is_constant_evaluated()) {
      typename __store<T>::type e[4] = {};
      for (int k = 0; k < N; ++k) e[k] = __to_store(T(s[k]));
      return __storage_of(e);
    }
    return __converted_at_run_time(s);
  }
  template <class U> static __storage __converted_at_run_time(const vec<U, N>& s) {
    vec r;
    r.__convert(s);
    return r.__v;
  }
  template <class U> void __convert(const vec<U, N>& s) {
    if constexpr (__is_same(U, bfloat)) {
      typedef unsigned __u __attribute__((ext_vector_type(N)));
      typedef float __f __attribute__((ext_vector_type(N)));
      vec<float, N> f;
      f.__v = __builtin_bit_cast(__f, __builtin_convertvector(s.__v, __u) << 16);
      if constexpr (__is_same(T, float)) *this = f;
      else __convert(f);
    } else if constexpr (__is_same(T, bool)) {
      this->__v = __builtin_convertvector(s.__v != 0, __storage) & (unsigned char)1;
    } else if constexpr (__is_same(T, bfloat)) {
      typedef unsigned __u __attribute__((ext_vector_type(N)));
      typedef float __f __attribute__((ext_vector_type(N)));
      __u u = __builtin_bit_cast(__u, __builtin_convertvector(s.__v, __f));
      __u nan = (__u)((u & 0x7fffffffu) > 0x7f800000u);  // all-ones where NaN
      __u rne = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
      __u qnan = (u >> 16) | 0x40u;
      this->__v = __builtin_convertvector((nan & qnan) | (~nan & rne), __storage);
    } else {
      this->__v = __builtin_convertvector(s.__v, __storage);
    }
  }
};

// Packed vectors have the swizzles too (MSL 2.1+), over their T array.
#define __MSLSIM_PBASE_SWIZZLES                                                                   \
  template <int... I> vec<T, sizeof...(I)> __swizzle() const { return vec<T, sizeof...(I)>(this->__e[I]...); } \
  template <int... I> void __set_swizzle(const vec<T, sizeof...(I)>& v) {                        \
    int k = 0;                                                                                    \
    ((this->__e[I] = v.__e[k++]), ...);                                                           \
  }
template <class T, int N> struct __pbase;
template <class T> struct __pbase<T, 2> {
  union {
    T __e[2];
    struct { T x, y; };
  };
  __MSLSIM_PBASE_SWIZZLES
#include "swizzle2.inc"
};
template <class T> struct __pbase<T, 3> {
  union {
    T __e[3];
    struct { T x, y, z; };
  };
  __MSLSIM_PBASE_SWIZZLES
#include "swizzle3.inc"
};
template <class T> struct __pbase<T, 4> {
  union {
    T __e[4];
    struct { T x, y, z, w; };
  };
  __MSLSIM_PBASE_SWIZZLES
#include "swizzle4.inc"
};
#undef __MSLSIM_PBASE_SWIZZLES

// Packed vectors: N*sizeof(T) bytes, alignment of T; arithmetic goes through vec<T,N>.
template <class T, int N> struct packed_vec : __pbase<T, N> {
  typedef vec<T, N> __vec_type;
  typedef T value_type;
  packed_vec() = default;
  packed_vec(const vec<T, N>& v) { for (int i = 0; i < N; ++i) this->__e[i] = v.__e[i]; }
  template <class S, enable_if_t<__is_scalar_v<S>, int> = 0>
  packed_vec(S s) { for (int i = 0; i < N; ++i) this->__e[i] = T(s); }
  template <class X, enable_if_t<__vt<X>::veclike && !__is_same(X, packed_vec) && !__is_same(X, vec<T, N>), int> = 0>
  explicit packed_vec(const X& x) : packed_vec(vec<T, N>(x)) {}
  template <class A0, class A1, class... As,
            enable_if_t<__ncomp<A0> + __ncomp<A1> + (0 + ... + __ncomp<As>) == N, int> = 0>
  packed_vec(const A0& a0, const A1& a1, const As&... as) : packed_vec(vec<T, N>(a0, a1, as...)) {}
  T& operator[](int i) { return this->__e[i]; }
  const T& operator[](int i) const { return this->__e[i]; }
};

// numeric_limits of a vector (SPIR-V Cross's subgroup emulation returns numeric_limits<T>::max()
// with T = float4): the element's constants, its functions splatted.
template <class T, int N> struct numeric_limits<vec<T, N>> : numeric_limits<T> {
  typedef numeric_limits<T> __s;
  static vec<T, N> min() { return vec<T, N>(__s::min()); }
  static vec<T, N> max() { return vec<T, N>(__s::max()); }
  static vec<T, N> lowest() { return vec<T, N>(__s::lowest()); }
  static vec<T, N> epsilon() { return vec<T, N>(__s::epsilon()); }
  static vec<T, N> round_error() { return vec<T, N>(__s::round_error()); }
  static vec<T, N> infinity() { return vec<T, N>(__s::infinity()); }
  static vec<T, N> quiet_NaN() { return vec<T, N>(__s::quiet_NaN()); }
  static vec<T, N> signaling_NaN() { return vec<T, N>(__s::signaling_NaN()); }
  static vec<T, N> denorm_min() { return vec<T, N>(__s::denorm_min()); }
};

// MSL's vector traits (<metal_type_traits>): whether a type is a vector, and its number of
// components, 0 for anything else (generic kernels write `vec_elements<T>::value ?: 1`).
template <class T> struct is_vector : bool_constant<false> {};
template <class T, int N> struct is_vector<vec<T, N>> : bool_constant<true> {};
template <class T, int N> struct is_vector<packed_vec<T, N>> : bool_constant<true> {};
template <class T> struct is_vector<const T> : is_vector<T> {};
template <class T> struct is_vector<volatile T> : is_vector<T> {};
template <class T> struct is_vector<const volatile T> : is_vector<T> {};
template <class T> constexpr bool is_vector_v = is_vector<T>::value;
template <class T> struct vec_elements : integral_constant<uint, 0> {};
template <class T, int N> struct vec_elements<vec<T, N>> : integral_constant<uint, N> {};
template <class T, int N> struct vec_elements<packed_vec<T, N>> : integral_constant<uint, N> {};
template <class T> struct vec_elements<const T> : vec_elements<T> {};
template <class T> struct vec_elements<volatile T> : vec_elements<T> {};
template <class T> struct vec_elements<const volatile T> : vec_elements<T> {};
template <class T> constexpr uint vec_elements_v = vec_elements<T>::value;
// Apple's arithmetic traits see through a vector to its elements, under const and volatile too:
// is_integral_v<int4>, is_floating_point_v<half2>, is_signed_v<float4>, make_signed_t<uint4> is
// int4, make_scalar_t<const half2> is half (is_scalar stays false for vectors).
#define __MSLSIM_ELEMENT_TRAIT(trait, CV)                                           \
  template <class T, int N> struct trait<CV vec<T, N>> : trait<T> {};              \
  template <class T, int N> struct trait<CV packed_vec<T, N>> : trait<T> {};
#define __MSLSIM_ELEMENT_TRAITS(CV)                                                  \
  __MSLSIM_ELEMENT_TRAIT(is_integral, CV) __MSLSIM_ELEMENT_TRAIT(is_floating_point, CV) \
  __MSLSIM_ELEMENT_TRAIT(is_arithmetic, CV) __MSLSIM_ELEMENT_TRAIT(is_signed, CV)       \
  __MSLSIM_ELEMENT_TRAIT(is_unsigned, CV)
__MSLSIM_ELEMENT_TRAITS()
__MSLSIM_ELEMENT_TRAITS(const)
__MSLSIM_ELEMENT_TRAITS(volatile)
__MSLSIM_ELEMENT_TRAITS(const volatile)
#undef __MSLSIM_ELEMENT_TRAITS
#undef __MSLSIM_ELEMENT_TRAIT
template <class T, int N> struct __make_signed<vec<T, N>> { typedef vec<typename __make_signed<T>::type, N> type; };
template <class T, int N> struct __make_signed<packed_vec<T, N>> { typedef packed_vec<typename __make_signed<T>::type, N> type; };
template <class T, int N> struct __make_unsigned<vec<T, N>> { typedef vec<typename __make_unsigned<T>::type, N> type; };
template <class T, int N> struct __make_unsigned<packed_vec<T, N>> { typedef packed_vec<typename __make_unsigned<T>::type, N> type; };
template <class T> struct __make_scalar { typedef T type; };
template <class T, int N> struct __make_scalar<vec<T, N>> { typedef T type; };
template <class T, int N> struct __make_scalar<packed_vec<T, N>> { typedef T type; };
template <class T> struct make_scalar { typedef typename __make_scalar<remove_cv_t<T>>::type type; };
template <class T> using make_scalar_t = typename make_scalar<T>::type;

#define __MSLSIM_VEC_TYPEDEFS(T, name)                                                   \
  typedef vec<T, 2> name##2; typedef vec<T, 3> name##3; typedef vec<T, 4> name##4;        \
  typedef packed_vec<T, 2> packed_##name##2; typedef packed_vec<T, 3> packed_##name##3;  \
  typedef packed_vec<T, 4> packed_##name##4;
__MSLSIM_VEC_TYPEDEFS(float, float)
__MSLSIM_VEC_TYPEDEFS(half, half)
__MSLSIM_VEC_TYPEDEFS(bfloat, bfloat)
__MSLSIM_VEC_TYPEDEFS(int, int)
__MSLSIM_VEC_TYPEDEFS(uint, uint)
__MSLSIM_VEC_TYPEDEFS(short, short)
__MSLSIM_VEC_TYPEDEFS(ushort, ushort)
__MSLSIM_VEC_TYPEDEFS(char, char)
__MSLSIM_VEC_TYPEDEFS(uchar, uchar)
__MSLSIM_VEC_TYPEDEFS(long, long)
__MSLSIM_VEC_TYPEDEFS(ulong, ulong)
typedef vec<bool, 2> bool2; typedef vec<bool, 3> bool3; typedef vec<bool, 4> bool4;
#undef __MSLSIM_VEC_TYPEDEFS

// ---------------------------------------------------------------- operators
// Result vector type of a binary operator: both vector-like of the same vec type, or one
// vector-like and one scalar (converted to the element type).
template <class A, class B, bool = __vt<A>::veclike, bool = __vt<B>::veclike> struct __vbin {};
template <class A, class B> struct __vbin<A, B, true, true>
    : __enable_if<__is_same(__vec_of<A>, __vec_of<B>), __vec_of<A>> {};
template <class A, class B> struct __vbin<A, B, true, false> : __enable_if<__is_scalar_v<B>, __vec_of<A>> {};
template <class A, class B> struct __vbin<A, B, false, true> : __enable_if<__is_scalar_v<A>, __vec_of<B>> {};
template <class A, class B> using __vbin_t = typename __vbin<A, B>::type;

// bfloat vectors compute in float; everything else directly on the storage.
template <class V> METAL_FUNC auto __wide(const V& v) {
  if constexpr (__is_same(typename V::__elem, bfloat)) return vec<float, V::__n>(v).__v;
  else return v.__v;
}
template <class V, class S> METAL_FUNC V __from_wide(const S& s) {
  if constexpr (__is_same(typename V::__elem, bfloat)) {
    vec<float, V::__n> f; f.__v = s; return V(f);
  } else {
    V r; r.__v = s; return r;
  }
}
template <int N, class M> METAL_FUNC vec<bool, N> __mkbool(const M& m) {
  vec<bool, N> r;
  r.__v = __builtin_convertvector(m, typename vec<bool, N>::__storage) & (unsigned char)1;
  return r;
}

#define __MSLSIM_ARITH(op)                                                      \
  template <class A, class B, class V = __vbin_t<A, B>>                         \
  METAL_FUNC V operator op(const A& a, const B& b) {                            \
    return __from_wide<V>(__wide(V(a)) op __wide(V(b)));                        \
  }
__MSLSIM_ARITH(+) __MSLSIM_ARITH(-) __MSLSIM_ARITH(*) __MSLSIM_ARITH(/)
#undef __MSLSIM_ARITH
#define __MSLSIM_BITOP(op)                                                      \
  template <class A, class B, class V = __vbin_t<A, B>>                         \
  METAL_FUNC V operator op(const A& a, const B& b) {                            \
    V r; r.__v = V(a).__v op V(b).__v; return r;                                \
  }
__MSLSIM_BITOP(%) __MSLSIM_BITOP(&) __MSLSIM_BITOP(|) __MSLSIM_BITOP(^)
#undef __MSLSIM_BITOP
// MSL uses only the low log2(bits) bits of a shift count.
#define __MSLSIM_SHIFT(op)                                                                   \
  template <class A, class B, class V = __vbin_t<A, B>>                                      \
  METAL_FUNC V operator op(const A& a, const B& b) {                                         \
    V r; r.__v = V(a).__v op (V(b).__v & (typename V::__elem)(sizeof(typename V::__elem) * 8 - 1)); \
    return r;                                                                                \
  }
__MSLSIM_SHIFT(<<) __MSLSIM_SHIFT(>>)
#undef __MSLSIM_SHIFT
#define __MSLSIM_CMP(op)                                                        \
  template <class A, class B, class V = __vbin_t<A, B>>                         \
  METAL_FUNC vec<bool, V::__n> operator op(const A& a, const B& b) {            \
    return __mkbool<V::__n>(__wide(V(a)) op __wide(V(b)));                      \
  }
__MSLSIM_CMP(==) __MSLSIM_CMP(!=) __MSLSIM_CMP(<) __MSLSIM_CMP(>) __MSLSIM_CMP(<=) __MSLSIM_CMP(>=)
#undef __MSLSIM_CMP
// && and || on bool vectors are component-wise (so they cannot short-circuit).
template <class A, class B, class V = __vbin_t<A, B>, enable_if_t<__is_same(typename V::__elem, bool), int> = 0>
METAL_FUNC V operator&&(const A& a, const B& b) { V r; r.__v = V(a).__v & V(b).__v; return r; }
template <class A, class B, class V = __vbin_t<A, B>, enable_if_t<__is_same(typename V::__elem, bool), int> = 0>
METAL_FUNC V operator||(const A& a, const B& b) { V r; r.__v = V(a).__v | V(b).__v; return r; }

template <class X, class V = enable_if_t<__vt<X>::veclike, __vec_of<X>>>
METAL_FUNC V operator!(const X& x) {
  if constexpr (__is_same(typename V::__elem, bool)) { V r; r.__v = V(x).__v ^ (unsigned char)1; return r; }
  else return __mkbool<V::__n>(__wide(V(x)) == 0);
}
template <class X, class V = enable_if_t<__vt<X>::veclike, __vec_of<X>>>
METAL_FUNC V operator-(const X& x) {
  V r(x);
  if constexpr (__is_same(typename V::__elem, bfloat)) r.__v ^= (unsigned short)0x8000;
  else r.__v = -r.__v;
  return r;
}
template <class X, class V = enable_if_t<__vt<X>::veclike, __vec_of<X>>>
METAL_FUNC V operator+(const X& x) { return V(x); }
template <class X, class V = enable_if_t<__vt<X>::veclike, __vec_of<X>>>
METAL_FUNC V operator~(const X& x) { V r(x); r.__v = ~r.__v; return r; }

// Compound assignment on anything vector-like that is assignable (vec, packed; a swizzle's is its
// getter and setter around the operator).
#define __MSLSIM_COMPOUND(op)                                                       \
  template <class L, class B, class = enable_if_t<__vt<L>::veclike>>                \
  METAL_FUNC L& operator op##=(L& l, const B& b) {                                  \
    l = __vec_of<L>(l) op b;                                                        \
    return l;                                                                       \
  }
__MSLSIM_COMPOUND(+) __MSLSIM_COMPOUND(-) __MSLSIM_COMPOUND(*) __MSLSIM_COMPOUND(/) __MSLSIM_COMPOUND(%)
__MSLSIM_COMPOUND(&) __MSLSIM_COMPOUND(|) __MSLSIM_COMPOUND(^) __MSLSIM_COMPOUND(<<) __MSLSIM_COMPOUND(>>)
#undef __MSLSIM_COMPOUND
template <class T, int N> METAL_FUNC vec<T, N>& operator++(vec<T, N>& v) { return v += 1; }
template <class T, int N> METAL_FUNC vec<T, N>& operator--(vec<T, N>& v) { return v -= 1; }
template <class T, int N> METAL_FUNC vec<T, N> operator++(vec<T, N>& v, int) { vec<T, N> t = v; v += 1; return t; }
template <class T, int N> METAL_FUNC vec<T, N> operator--(vec<T, N>& v, int) { vec<T, N> t = v; v -= 1; return t; }

// ---------------------------------------------------------------- as_type
template <class To, class From> METAL_FUNC To as_type(const From& x) {
  static_assert(sizeof(To) == sizeof(From), "as_type: types must have the same size");
  return __builtin_bit_cast(To, x);
}
}  // namespace metal

// Vector names are global too (they are built-in types in MSL), as aliases of the same types.
#define __MSLSIM_GLOBAL(name) using metal::name##2; using metal::name##3; using metal::name##4; \
  using metal::packed_##name##2; using metal::packed_##name##3; using metal::packed_##name##4;
__MSLSIM_GLOBAL(float) __MSLSIM_GLOBAL(half) __MSLSIM_GLOBAL(bfloat) __MSLSIM_GLOBAL(int)
__MSLSIM_GLOBAL(uint) __MSLSIM_GLOBAL(short) __MSLSIM_GLOBAL(ushort) __MSLSIM_GLOBAL(char)
__MSLSIM_GLOBAL(uchar) __MSLSIM_GLOBAL(long) __MSLSIM_GLOBAL(ulong)
#undef __MSLSIM_GLOBAL
using metal::bool2; using metal::bool3; using metal::bool4;
