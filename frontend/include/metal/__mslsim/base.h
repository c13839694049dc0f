// Scalar types, type traits, bfloat, numeric_limits, array and constants of mslsim's MSL library.
// Freestanding: only compiler builtins, because every kernel is parsed with this header and must not
// depend on (or pay for) the host C++ library. The address-space macros of prelude.h are defined
// while this is parsed, so the words device/constant/thread/threadgroup are never identifiers here.
#pragma once

#ifndef __HAVE_BFLOAT__
// Apple's compiler defines this when the bfloat type exists; MLX's bf16.h selects the native type
// (typedef bfloat bfloat16_t) instead of its own emulation when it is set.
#define __HAVE_BFLOAT__ 1
#endif
#ifndef __METAL_FAST_MATH__
// Flag values passed to Apple's internal __metal_* math builtins (used by MLX's bf16_math.h).
#define __METAL_FAST_MATH__ true
#define __METAL_PRECISE_MATH__ false
#define __METAL_MAYBE_FAST_MATH__ false
#endif

// MSL scalar names are global, as in Apple's headers (they behave like built-in types there).
typedef _Float16 half;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long int64_t;
typedef unsigned long uint64_t;
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;

// The language-support type braced lists build (its layout is the compiler's: a pointer and a
// length). MSL code names it unqualified: SPIR-V Cross's matrix wrappers take
// `initializer_list<vec<T, Rows>>`.
namespace std {
template <class E> class initializer_list {
  const E* __begin;
  size_t __size;
  constexpr initializer_list(const E* b, size_t n) : __begin(b), __size(n) {}

 public:
  typedef E value_type;
  typedef const E& reference;
  typedef const E& const_reference;
  typedef size_t size_type;
  typedef const E* iterator;
  typedef const E* const_iterator;
  constexpr initializer_list() : __begin(nullptr), __size(0) {}
  constexpr size_t size() const { return __size; }
  constexpr const E* begin() const { return __begin; }
  constexpr const E* end() const { return __begin + __size; }
};
template <class E> constexpr const E* begin(initializer_list<E> l) { return l.begin(); }
template <class E> constexpr const E* end(initializer_list<E> l) { return l.end(); }
}  // namespace std

namespace metal {
using std::initializer_list;
using ::half; using ::uchar; using ::ushort; using ::uint; using ::ulong;
using ::int8_t; using ::uint8_t; using ::int16_t; using ::uint16_t; using ::int32_t; using ::uint32_t;
using ::int64_t; using ::uint64_t; using ::size_t; using ::ptrdiff_t;

// Known to Apple's compiler without any include (MLX's fence.metal names metal::thread_scope before
// it includes <metal_atomic>).
enum memory_order {
  memory_order_relaxed = __ATOMIC_RELAXED,
  memory_order_acquire = __ATOMIC_ACQUIRE,
  memory_order_release = __ATOMIC_RELEASE,
  memory_order_acq_rel = __ATOMIC_ACQ_REL,
  memory_order_seq_cst = __ATOMIC_SEQ_CST,
};
enum thread_scope {
  thread_scope_thread = 0,
  thread_scope_simdgroup = 1,
  thread_scope_threadgroup = 2,
  thread_scope_device = 3,
};

// ---------------------------------------------------------------- type traits (the subset MSL code uses)
template <class T, T v> struct integral_constant {
  static constexpr T value = v;
  typedef T value_type;
  typedef integral_constant type;
  constexpr operator value_type() const { return value; }
  constexpr value_type operator()() const { return value; }
};
template <bool b> using bool_constant = integral_constant<bool, b>;
typedef bool_constant<true> true_type;
typedef bool_constant<false> false_type;

template <bool, class T = void> struct __enable_if {};
template <class T> struct __enable_if<true, T> { typedef T type; };
// MLX's steel/utils/integral_constant.h guards overloads with `typename _E = metal::enable_if<cond>`
// (no ::type), which only works if naming metal::enable_if<false> is itself a substitution
// failure, as on Apple's compiler: so enable_if<b, T> is an alias of a class whose ::type is T,
// and does not exist when b is false. (The headers use __enable_if as a base class.)
template <class T> struct __enabled { typedef T type; };
template <bool b, class T = void> using enable_if = typename __enable_if<b, __enabled<T>>::type;
template <bool b, class T = void> using enable_if_t = typename __enable_if<b, T>::type;
template <bool, class A, class B> struct conditional { typedef A type; };
template <class A, class B> struct conditional<false, A, B> { typedef B type; };
template <bool b, class A, class B> using conditional_t = typename conditional<b, A, B>::type;
// Apple's library has no void_t, is_empty or is_empty_v in metal:: (MLX's steel/utils/type_traits.h
// defines them there itself, with make_void), so they are internal here.
template <class...> using __void_t = void;

template <class A, class B> struct is_same : bool_constant<__is_same(A, B)> {};
template <class A, class B> constexpr bool is_same_v = __is_same(A, B);
template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
template <class T> using remove_const_t = typename remove_const<T>::type;
template <class T> using remove_volatile_t = typename remove_volatile<T>::type;
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> struct remove_cvref { typedef remove_cv_t<remove_reference_t<T>> type; };
template <class T> using remove_cvref_t = typename remove_cvref<T>::type;
// Address spaces are erased by the front end, so removing one is the identity.
template <class T> struct remove_addrspace { typedef T type; };
template <class T> using remove_addrspace_t = T;
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <class T> struct remove_pointer<T* const> { typedef T type; };
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class T> struct add_const { typedef const T type; };
template <class T> using add_const_t = const T;
template <class T> struct remove_extent { typedef T type; };
template <class T> struct remove_extent<T[]> { typedef T type; };
template <class T, size_t N> struct remove_extent<T[N]> { typedef T type; };
template <class T> using remove_extent_t = typename remove_extent<T>::type;
template <class T> struct type_identity { typedef T type; };
template <class T> using type_identity_t = typename type_identity<T>::type;
template <class T> T&& declval() noexcept;
// __dep<X, T>::type is T, but depends on X: headers use it so that a template's body or default
// argument does not instantiate vec<T,N> (which is expensive) when the header is merely included.
template <class X, class T> struct __dep { typedef T type; };

class bfloat;
template <class T> struct is_integral : bool_constant<__is_integral(T)> {};
template <class T> struct is_floating_point : bool_constant<__is_floating_point(remove_cv_t<T>) || __is_same(remove_cv_t<T>, bfloat)> {};
template <class T> struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};
template <class T> struct is_signed : bool_constant<__is_signed(T) || __is_same(remove_cv_t<T>, bfloat)> {};
template <class T> struct is_unsigned : bool_constant<__is_unsigned(T)> {};
template <class T> struct is_scalar : bool_constant<__is_scalar(T) || __is_same(remove_cv_t<T>, bfloat)> {};
template <class T> struct is_pointer : bool_constant<__is_pointer(T)> {};
template <class T> struct is_enum : bool_constant<__is_enum(T)> {};
template <class T> struct is_class : bool_constant<__is_class(T)> {};
template <class T> struct is_const : bool_constant<__is_const(T)> {};
template <class T> struct is_void : bool_constant<__is_void(T)> {};
template <class T> struct is_trivially_copyable : bool_constant<__is_trivially_copyable(T)> {};
template <class F, class T> struct is_convertible : bool_constant<__is_convertible_to(F, T)> {};
template <class B, class D> struct is_base_of : bool_constant<__is_base_of(B, D)> {};
template <class T> constexpr bool is_integral_v = is_integral<T>::value;
template <class T> constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> constexpr bool is_signed_v = is_signed<T>::value;
template <class T> constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <class T> constexpr bool is_scalar_v = is_scalar<T>::value;
template <class T> constexpr bool is_pointer_v = __is_pointer(T);
template <class T> constexpr bool is_enum_v = __is_enum(T);
template <class T> constexpr bool is_class_v = __is_class(T);
template <class T> constexpr bool is_const_v = __is_const(T);
template <class T> constexpr bool is_void_v = __is_void(T);
template <class T> constexpr bool is_trivially_copyable_v = __is_trivially_copyable(T);
template <class F, class T> constexpr bool is_convertible_v = __is_convertible_to(F, T);
template <class B, class D> constexpr bool is_base_of_v = __is_base_of(B, D);

// More standard traits (cheap: nothing here is instantiated unless used). MLX's
// steel/utils/type_traits.h defines is_empty, is_empty_v, make_void and void_t itself, so those
// are not here (see __void_t); _conjunction/_disjunction are the internal names MLX uses.
template <class T> struct is_volatile : bool_constant<__is_volatile(T)> {};
template <class T> struct is_array : bool_constant<__is_array(T)> {};
template <class T> struct is_reference : bool_constant<__is_reference(T)> {};
template <class T> struct is_lvalue_reference : bool_constant<__is_lvalue_reference(T)> {};
template <class T> struct is_rvalue_reference : bool_constant<__is_rvalue_reference(T)> {};
template <class T> struct is_function : bool_constant<__is_function(T)> {};
template <class T> struct is_union : bool_constant<__is_union(T)> {};
template <class T> struct is_member_pointer : bool_constant<__is_member_pointer(T)> {};
template <class T> struct is_null_pointer : bool_constant<__is_same(remove_cv_t<T>, decltype(nullptr))> {};
template <class T> struct is_fundamental : bool_constant<__is_fundamental(T) || __is_same(remove_cv_t<T>, bfloat)> {};
template <class T> struct is_compound : bool_constant<!is_fundamental<T>::value> {};
template <class T> struct is_object : bool_constant<__is_object(T)> {};
template <class T> struct is_trivial : bool_constant<__is_trivial(T)> {};
template <class T> struct is_trivially_destructible : bool_constant<__is_trivially_destructible(T)> {};
template <class T> struct is_standard_layout : bool_constant<__is_standard_layout(T)> {};
template <class T, class... A> struct is_constructible : bool_constant<__is_constructible(T, A...)> {};
template <class T> struct is_default_constructible : bool_constant<__is_constructible(T)> {};
template <class T, class U> struct is_assignable : bool_constant<__is_assignable(T, U)> {};
template <class T> struct alignment_of : integral_constant<size_t, alignof(T)> {};
// rank/extent by specialization: Clang 16's __array_rank/__array_extent crash its code generator
// when used in a variable template's initializer.
template <class T> struct rank : integral_constant<size_t, 0> {};
template <class T> struct rank<T[]> : integral_constant<size_t, rank<T>::value + 1> {};
template <class T, size_t N> struct rank<T[N]> : integral_constant<size_t, rank<T>::value + 1> {};
template <class T, unsigned I = 0> struct extent : integral_constant<size_t, 0> {};
template <class T> struct extent<T[], 0> : integral_constant<size_t, 0> {};
template <class T, unsigned I> struct extent<T[], I> : extent<T, I - 1> {};
template <class T, size_t N> struct extent<T[N], 0> : integral_constant<size_t, N> {};
template <class T, size_t N, unsigned I> struct extent<T[N], I> : extent<T, I - 1> {};
template <class T> struct underlying_type { typedef __underlying_type(T) type; };
template <class...> struct conjunction : true_type {};
template <class B> struct conjunction<B> : B {};
template <class B, class... Bs> struct conjunction<B, Bs...> : conditional_t<bool(B::value), conjunction<Bs...>, B> {};
template <class...> struct disjunction : false_type {};
template <class B> struct disjunction<B> : B {};
template <class B, class... Bs> struct disjunction<B, Bs...> : conditional_t<bool(B::value), B, disjunction<Bs...>> {};
template <class B> struct negation : bool_constant<!bool(B::value)> {};
template <class... B> using _conjunction = conjunction<B...>;
template <class... B> using _disjunction = disjunction<B...>;
template <class T> struct add_pointer { typedef remove_reference_t<T>* type; };
template <class T> struct add_lvalue_reference { typedef T& type; };
template <> struct add_lvalue_reference<void> { typedef void type; };
template <class T> struct add_rvalue_reference { typedef T&& type; };
template <> struct add_rvalue_reference<void> { typedef void type; };
template <class T> struct add_volatile { typedef volatile T type; };
template <class T> struct add_cv { typedef const volatile T type; };
template <class T> struct decay {
  typedef remove_reference_t<T> U;
  typedef conditional_t<__is_array(U), remove_extent_t<U>*,
                        conditional_t<__is_function(U), U*, remove_cv_t<U>>> type;
};
template <class... T> struct common_type {};
template <class T> struct common_type<T> : common_type<T, T> {};
template <class A, class B> struct common_type<A, B> {
  typedef typename decay<decltype(true ? declval<A>() : declval<B>())>::type type;
};
template <class A, class B, class C, class... R> struct common_type<A, B, C, R...>
    : common_type<typename common_type<A, B>::type, C, R...> {};
template <class T, T... I> struct integer_sequence {
  typedef T value_type;
  static constexpr size_t size() { return sizeof...(I); }
};
template <size_t... I> using index_sequence = integer_sequence<size_t, I...>;
template <class T, T N> using make_integer_sequence = __make_integer_seq<integer_sequence, T, N>;
template <size_t N> using make_index_sequence = make_integer_sequence<size_t, N>;
template <class... T> using index_sequence_for = make_index_sequence<sizeof...(T)>;
template <class T> constexpr bool is_volatile_v = __is_volatile(T);
template <class T> constexpr bool is_array_v = __is_array(T);
template <class T> constexpr bool is_reference_v = __is_reference(T);
template <class T> constexpr bool is_lvalue_reference_v = __is_lvalue_reference(T);
template <class T> constexpr bool is_rvalue_reference_v = __is_rvalue_reference(T);
template <class T> constexpr bool is_function_v = __is_function(T);
template <class T> constexpr bool is_union_v = __is_union(T);
template <class T> constexpr bool is_member_pointer_v = __is_member_pointer(T);
template <class T> constexpr bool is_null_pointer_v = is_null_pointer<T>::value;
template <class T> constexpr bool is_fundamental_v = is_fundamental<T>::value;
template <class T> constexpr bool is_compound_v = !is_fundamental<T>::value;
template <class T> constexpr bool is_object_v = __is_object(T);
template <class T> constexpr bool is_trivial_v = __is_trivial(T);
template <class T> constexpr bool is_trivially_destructible_v = __is_trivially_destructible(T);
template <class T> constexpr bool is_standard_layout_v = __is_standard_layout(T);
template <class T, class... A> constexpr bool is_constructible_v = __is_constructible(T, A...);
template <class T> constexpr bool is_default_constructible_v = __is_constructible(T);
template <class T, class U> constexpr bool is_assignable_v = __is_assignable(T, U);
template <class T> constexpr size_t alignment_of_v = alignof(T);
template <class T> constexpr size_t rank_v = rank<T>::value;
template <class T, unsigned I = 0> constexpr size_t extent_v = extent<T, I>::value;
template <class... B> constexpr bool conjunction_v = conjunction<B...>::value;
template <class... B> constexpr bool disjunction_v = disjunction<B...>::value;
template <class B> constexpr bool negation_v = !bool(B::value);
template <class T> using underlying_type_t = typename underlying_type<T>::type;
template <class T> using add_pointer_t = typename add_pointer<T>::type;
template <class T> using add_lvalue_reference_t = typename add_lvalue_reference<T>::type;
template <class T> using add_rvalue_reference_t = typename add_rvalue_reference<T>::type;
template <class T> using add_volatile_t = volatile T;
template <class T> using add_cv_t = const volatile T;
template <class T> using decay_t = typename decay<T>::type;
template <class... T> using common_type_t = typename common_type<T...>::type;

// As Apple's: const and volatile dropped, vectors of the element type's counterpart (vec.h).
template <class T> struct __make_unsigned;
template <> struct __make_unsigned<char> { typedef unsigned char type; };
template <> struct __make_unsigned<signed char> { typedef unsigned char type; };
template <> struct __make_unsigned<unsigned char> { typedef unsigned char type; };
template <> struct __make_unsigned<short> { typedef unsigned short type; };
template <> struct __make_unsigned<unsigned short> { typedef unsigned short type; };
template <> struct __make_unsigned<int> { typedef unsigned int type; };
template <> struct __make_unsigned<unsigned int> { typedef unsigned int type; };
template <> struct __make_unsigned<long> { typedef unsigned long type; };
template <> struct __make_unsigned<unsigned long> { typedef unsigned long type; };
template <> struct __make_unsigned<bool> { typedef bool type; };
template <class T> struct __make_signed;
template <> struct __make_signed<char> { typedef signed char type; };
template <> struct __make_signed<signed char> { typedef signed char type; };
template <> struct __make_signed<unsigned char> { typedef signed char type; };
template <> struct __make_signed<short> { typedef short type; };
template <> struct __make_signed<unsigned short> { typedef short type; };
template <> struct __make_signed<int> { typedef int type; };
template <> struct __make_signed<unsigned int> { typedef int type; };
template <> struct __make_signed<long> { typedef long type; };
template <> struct __make_signed<unsigned long> { typedef long type; };
template <class T> struct make_unsigned { typedef typename __make_unsigned<remove_cv_t<T>>::type type; };
template <class T> struct make_signed { typedef typename __make_signed<remove_cv_t<T>>::type type; };
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
template <class T> using make_signed_t = typename make_signed<T>::type;

// ---------------------------------------------------------------- bfloat
// Clang 16's __bf16 has no arithmetic, so bfloat is a class holding the 16 bits. Arithmetic between
// bfloats is done in float and rounded once (correctly rounded for + - * /, since float has more than
// 2p+2 bits). bfloat converts implicitly from integers, not from float or half (MSL §2.23), and
// explicitly from every arithmetic type. The usual arithmetic conversions then fall out of overload
// resolution: an integer operand becomes a bfloat (`x * 2`), a float operand makes the bfloat a float
// (`x * 2.0f`), and operators do not mix bfloat and half.
constexpr unsigned short __f32_to_bf16(float f) {
  unsigned u = __builtin_bit_cast(unsigned, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);  // keep NaN a NaN
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
constexpr float __bf16_to_f32(unsigned short b) { return __builtin_bit_cast(float, (unsigned)b << 16); }
// Integers: bits below float's 24 are folded into a sticky bit first, so that the only rounding is
// the one to bfloat (float(i) then bfloat would round twice: 16842753 gave 16777216).
template <class I> constexpr unsigned short __int_to_bf16(I i) {
  bool neg = __is_signed(I) && i < I(0);
  unsigned long u = neg ? 0ul - (unsigned long)i : (unsigned long)i;
  if (u >= (1ul << 24)) {
    int s = 64 - __builtin_clzl(u) - 24;
    u = ((u >> s) | ((u & ((1ul << s) - 1)) != 0)) << s;
  }
  float f = float(u);
  return __f32_to_bf16(neg ? -f : f);
}

class bfloat {
 public:
  unsigned short __bits;
  bfloat() = default;
  constexpr explicit bfloat(float f) : __bits(__f32_to_bf16(f)) {}
  // Integers convert implicitly, as in Metal (`bfloat x; x = 0;`, `return 1;` from a bfloat function).
  template <class I, enable_if_t<__is_integral(I), int> = 0>
  constexpr bfloat(I i) : __bits(__int_to_bf16(i)) {}
  // A class that converts to a scalar (MLX's _NoMask has `operator bool()`): for Metal's built-in
  // bfloat the rest of the way is a standard conversion; for this class it takes a constructor.
  template <class U, enable_if_t<__is_class(U) && !__is_same(__remove_cv(U), bfloat) &&
                                     __is_convertible(U, float), int> = 0>
  constexpr bfloat(const U& u) : __bits(__f32_to_bf16(float(u))) {}
  // One conversion function, to float, which standard conversions may follow: Apple's compiler
  // converts bfloat implicitly to every arithmetic type (MLX's sort assigns a bfloat to a uint, its
  // reductions pass one to a bool parameter), and with one function overload resolution ranks the
  // candidates by what follows it (`x * 2.0f` is float * float). For a class this makes
  // `c ? x : 0` ambiguous, which the front end resolves as Metal does (see ConditionalArms.h).
  constexpr operator float() const { return __bf16_to_f32(__bits); }
  static constexpr bfloat __from_bits(unsigned short b) { bfloat r{}; r.__bits = b; return r; }

  constexpr bfloat operator-() const { return __from_bits((unsigned short)(__bits ^ 0x8000u)); }
  constexpr bfloat operator+() const { return *this; }
  // x op= y is x = x op y converted back to bfloat: in bfloat for integer and bfloat operands, in
  // float for float ones.
  template <class U> constexpr bfloat& operator+=(const U& o) { return *this = bfloat(*this + o); }
  template <class U> constexpr bfloat& operator-=(const U& o) { return *this = bfloat(*this - o); }
  template <class U> constexpr bfloat& operator*=(const U& o) { return *this = bfloat(*this * o); }
  template <class U> constexpr bfloat& operator/=(const U& o) { return *this = bfloat(*this / o); }
  constexpr bfloat& operator++() { return *this += 1; }
  constexpr bfloat& operator--() { return *this -= 1; }
  constexpr bfloat operator++(int) { bfloat t = *this; *this += 1; return t; }
  constexpr bfloat operator--(int) { bfloat t = *this; *this -= 1; return t; }

  // An integer operand is converted to bfloat first (rounded once), as the usual arithmetic
  // conversions say: 1 + 257 is 1 + 256, which rounds to 256, not 258.
#define __MSLSIM_BF_OP(op)                                                                          \
  friend constexpr bfloat operator op(bfloat a, bfloat b) { return bfloat(float(a) op float(b)); } \
  template <class I, enable_if_t<__is_integral(I), int> = 0>                                       \
  friend constexpr bfloat operator op(bfloat a, I b) { return a op bfloat(b); }                    \
  template <class I, enable_if_t<__is_integral(I), int> = 0>                                       \
  friend constexpr bfloat operator op(I a, bfloat b) { return bfloat(a) op b; }
  __MSLSIM_BF_OP(+) __MSLSIM_BF_OP(-) __MSLSIM_BF_OP(*) __MSLSIM_BF_OP(/)
#undef __MSLSIM_BF_OP
  // Operators may not mix bfloat and half (MSL §3.1): without these, half's own operators would take
  // the bfloat as a float.
#define __MSLSIM_BF_NO_HALF(op)                                                           \
  template <class H, enable_if_t<__is_same(H, _Float16), int> = 0>                        \
  friend void operator op(bfloat, H) = delete;                                            \
  template <class H, enable_if_t<__is_same(H, _Float16), int> = 0>                        \
  friend void operator op(H, bfloat) = delete;
  __MSLSIM_BF_NO_HALF(+) __MSLSIM_BF_NO_HALF(-) __MSLSIM_BF_NO_HALF(*) __MSLSIM_BF_NO_HALF(/)
  __MSLSIM_BF_NO_HALF(==) __MSLSIM_BF_NO_HALF(!=) __MSLSIM_BF_NO_HALF(<) __MSLSIM_BF_NO_HALF(>)
  __MSLSIM_BF_NO_HALF(<=) __MSLSIM_BF_NO_HALF(>=)
#undef __MSLSIM_BF_NO_HALF
#define __MSLSIM_BF_CMP(op)                                                                    \
  friend constexpr bool operator op(bfloat a, bfloat b) { return float(a) op float(b); }      \
  template <class I, enable_if_t<__is_integral(I), int> = 0>                                  \
  friend constexpr bool operator op(bfloat a, I b) { return float(a) op float(bfloat(b)); }   \
  template <class I, enable_if_t<__is_integral(I), int> = 0>                                  \
  friend constexpr bool operator op(I a, bfloat b) { return float(bfloat(a)) op float(b); }
  __MSLSIM_BF_CMP(==) __MSLSIM_BF_CMP(!=) __MSLSIM_BF_CMP(<) __MSLSIM_BF_CMP(>) __MSLSIM_BF_CMP(<=) __MSLSIM_BF_CMP(>=)
#undef __MSLSIM_BF_CMP
};
static_assert(sizeof(bfloat) == 2 && alignof(bfloat) == 2, "bfloat layout");

// ---------------------------------------------------------------- numeric_limits
template <class T> struct numeric_limits {
  static constexpr bool is_specialized = false;
};
enum float_round_style {
  round_indeterminate = -1, round_toward_zero = 0, round_to_nearest = 1,
  round_toward_infinity = 2, round_toward_neg_infinity = 3,
};
enum float_denorm_style { denorm_indeterminate = -1, denorm_absent = 0, denorm_present = 1 };
template <class T, T Lo, T Hi, int Digits> struct __int_limits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = Lo == 0 && !__is_same(T, bool);
  static constexpr bool is_iec559 = false;
  static constexpr bool has_signaling_NaN = false;
  static constexpr float_denorm_style has_denorm = denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr float_round_style round_style = round_toward_zero;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr int digits10 = Digits * 643 / 2136;  // floor(digits * log10(2))
  static constexpr int max_digits10 = 0;
  static constexpr int min_exponent = 0, min_exponent10 = 0, max_exponent = 0, max_exponent10 = 0;
  static constexpr T round_error() { return 0; }
  static constexpr T denorm_min() { return 0; }
  static constexpr T signaling_NaN() { return 0; }
  static constexpr bool is_signed = Lo != 0;
  static constexpr bool is_integer = true;
  static constexpr bool is_exact = true;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr int digits = Digits;
  static constexpr int radix = 2;
  static constexpr T min() { return Lo; }
  static constexpr T max() { return Hi; }
  static constexpr T lowest() { return Lo; }
  static constexpr T epsilon() { return 0; }
  static constexpr T infinity() { return 0; }
  static constexpr T quiet_NaN() { return 0; }
};
template <> struct numeric_limits<bool> : __int_limits<bool, false, true, 1> {};
template <> struct numeric_limits<char> : __int_limits<char, (char)-128, (char)127, 7> {};
template <> struct numeric_limits<signed char> : __int_limits<signed char, -128, 127, 7> {};
template <> struct numeric_limits<unsigned char> : __int_limits<unsigned char, 0, 255, 8> {};
template <> struct numeric_limits<short> : __int_limits<short, -32768, 32767, 15> {};
template <> struct numeric_limits<unsigned short> : __int_limits<unsigned short, 0, 65535, 16> {};
template <> struct numeric_limits<int> : __int_limits<int, -2147483647 - 1, 2147483647, 31> {};
template <> struct numeric_limits<unsigned int> : __int_limits<unsigned int, 0u, 4294967295u, 32> {};
template <> struct numeric_limits<long> : __int_limits<long, -9223372036854775807L - 1, 9223372036854775807L, 63> {};
template <> struct numeric_limits<unsigned long> : __int_limits<unsigned long, 0ul, 18446744073709551615ul, 64> {};

// Floating limits are built from bit patterns so that half and bfloat need no literal suffixes.
template <class T, class Bits, Bits MinB, Bits MaxB, Bits EpsB, Bits InfB, Bits NanB, Bits DenB, int Digits,
          Bits SNanB, int Digits10, int MaxDigits10, int MinExp, int MinExp10, int MaxExp, int MaxExp10>
struct __fp_limits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr bool has_signaling_NaN = true;
  static constexpr float_denorm_style has_denorm = denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr float_round_style round_style = round_to_nearest;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr int digits10 = Digits10;
  static constexpr int max_digits10 = MaxDigits10;
  static constexpr int min_exponent = MinExp, min_exponent10 = MinExp10;
  static constexpr int max_exponent = MaxExp, max_exponent10 = MaxExp10;
  static constexpr T signaling_NaN() { return __builtin_bit_cast(T, SNanB); }
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool is_iec559 = true;
  static constexpr int digits = Digits;
  static constexpr int radix = 2;
  static constexpr T min() { return __builtin_bit_cast(T, MinB); }
  static constexpr T max() { return __builtin_bit_cast(T, MaxB); }
  static constexpr T lowest() { return __builtin_bit_cast(T, (Bits)(MaxB | (Bits)((Bits)1 << (sizeof(Bits) * 8 - 1)))); }
  static constexpr T epsilon() { return __builtin_bit_cast(T, EpsB); }
  static constexpr T infinity() { return __builtin_bit_cast(T, InfB); }
  static constexpr T quiet_NaN() { return __builtin_bit_cast(T, NanB); }
  static constexpr T denorm_min() { return __builtin_bit_cast(T, DenB); }
  static constexpr T round_error() { return T(0.5f); }
};
template <> struct numeric_limits<float>
    : __fp_limits<float, unsigned, 0x00800000u, 0x7f7fffffu, 0x34000000u, 0x7f800000u, 0x7fc00000u, 1u, 24,
                  0x7fa00000u, 6, 9, -125, -37, 128, 38> {};
template <> struct numeric_limits<half>
    : __fp_limits<half, unsigned short, 0x0400, 0x7bff, 0x1400, 0x7c00, 0x7e00, 1, 11, 0x7d00, 3, 5, -13, -4, 16, 4> {};
template <> struct numeric_limits<bfloat>
    : __fp_limits<bfloat, unsigned short, 0x0080, 0x7f7f, 0x3c00, 0x7f80, 0x7fc0, 1, 8, 0x7fa0, 2, 4, -125, -37, 128, 38> {};
template <class T> struct numeric_limits<const T> : numeric_limits<T> {};
template <class T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};

// ---------------------------------------------------------------- array, uniform
template <class T, size_t N> struct array {
  T __elems[N ? N : 1];
  constexpr size_t size() const { return N; }
  constexpr size_t max_size() const { return N; }
  constexpr bool empty() const { return N == 0; }
  constexpr T& operator[](size_t i) { return __elems[i]; }
  constexpr const T& operator[](size_t i) const { return __elems[i]; }
  constexpr T& front() { return __elems[0]; }
  constexpr const T& front() const { return __elems[0]; }
  constexpr T& back() { return __elems[N - 1]; }
  constexpr const T& back() const { return __elems[N - 1]; }
  constexpr T* data() { return __elems; }
  constexpr const T* data() const { return __elems; }
  constexpr T* begin() { return __elems; }
  constexpr const T* begin() const { return __elems; }
  constexpr T* end() { return __elems + N; }
  constexpr const T* end() const { return __elems + N; }
};
// uniform<T> only promises the value is the same in every thread; the simulator needs no wrapper.
template <class T> using uniform = T;
template <class T> constexpr T make_uniform(T v) { return v; }

}  // namespace metal
using metal::bfloat;

// ---------------------------------------------------------------- constants (macros, as Apple's headers)
#define MAXFLOAT 0x1.fffffep+127f
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define FLT_MAX 0x1.fffffep+127f
#define FLT_MIN 0x1p-126f
#define FLT_EPSILON 0x1p-23f
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_EXP 128
#define FLT_MIN_EXP (-125)
#define FLT_MAX_10_EXP 38
#define FLT_MIN_10_EXP (-37)
#define FLT_RADIX 2
#define M_E_F 2.71828182845904523536f
#define M_LOG2E_F 1.44269504088896340736f
#define M_LOG10E_F 0.434294481903251827651f
#define M_LN2_F 0.693147180559945309417f
#define M_LN10_F 2.30258509299404568402f
#define M_PI_F 3.14159265358979323846f
#define M_PI_2_F 1.57079632679489661923f
#define M_PI_4_F 0.785398163397448309616f
#define M_1_PI_F 0.318309886183790671538f
#define M_2_PI_F 0.636619772367581343076f
#define M_2_SQRTPI_F 1.12837916709551257390f
#define M_SQRT2_F 1.41421356237309504880f
#define M_SQRT1_2_F 0.707106781186547524401f
#define MAXHALF ((half)0x1.ffcp15f)
#define HUGE_VALH ((half)__builtin_huge_valf())
#define HALF_MAX ((half)0x1.ffcp15f)
#define HALF_MIN ((half)0x1p-14f)
#define HALF_EPSILON ((half)0x1p-10f)
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_EXP 16
#define HALF_MIN_EXP (-13)
#define HALF_RADIX 2
#define M_E_H ((half)M_E_F)
#define M_LOG2E_H ((half)M_LOG2E_F)
#define M_LOG10E_H ((half)M_LOG10E_F)
#define M_LN2_H ((half)M_LN2_F)
#define M_LN10_H ((half)M_LN10_F)
#define M_PI_H ((half)M_PI_F)
#define M_PI_2_H ((half)M_PI_2_F)
#define M_PI_4_H ((half)M_PI_4_F)
#define M_1_PI_H ((half)M_1_PI_F)
#define M_2_PI_H ((half)M_2_PI_F)
#define M_2_SQRTPI_H ((half)M_2_SQRTPI_F)
#define M_SQRT2_H ((half)M_SQRT2_F)
#define M_SQRT1_2_H ((half)M_SQRT1_2_F)
#define MAXBFLOAT (metal::bfloat::__from_bits(0x7f7f))
#define HUGE_VALBF (metal::bfloat::__from_bits(0x7f80))
#define BFLOAT_MAX (metal::bfloat::__from_bits(0x7f7f))
#define M_E_BF (metal::bfloat(M_E_F))
#define M_LOG2E_BF (metal::bfloat(M_LOG2E_F))
#define M_LOG10E_BF (metal::bfloat(M_LOG10E_F))
#define M_LN2_BF (metal::bfloat(M_LN2_F))
#define M_LN10_BF (metal::bfloat(M_LN10_F))
#define M_PI_BF (metal::bfloat(M_PI_F))
#define M_PI_2_BF (metal::bfloat(M_PI_2_F))
#define M_PI_4_BF (metal::bfloat(M_PI_4_F))
#define M_1_PI_BF (metal::bfloat(M_1_PI_F))
#define M_2_PI_BF (metal::bfloat(M_2_PI_F))
#define M_2_SQRTPI_BF (metal::bfloat(M_2_SQRTPI_F))
#define M_SQRT2_BF (metal::bfloat(M_SQRT2_F))
#define M_SQRT1_2_BF (metal::bfloat(M_SQRT1_2_F))
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define SCHAR_MIN (-128)
#define UCHAR_MAX 255
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define SHRT_MAX 32767
#define SHRT_MIN (-32768)
#define USHRT_MAX 65535
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 4294967295u
#define LONG_MAX 9223372036854775807L
#define LONG_MIN (-9223372036854775807L - 1)
#define ULONG_MAX 18446744073709551615UL
