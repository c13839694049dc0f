// Barriers, SIMD-group and quad-group functions. Everything collective goes through hooks.h.
//
// Each public function takes the call site as defaulted trailing arguments (evaluated at the
// caller, so they name the user's line) and forwards it to the simulator for diagnostics.
// SIMD functions are built on __mslsim_simd_exchange: every lane receives all 32 contributions and
// the active mask and computes its own result in C++, combining lanes in a fixed order (below:
// lane order, pairwise for sums and products, a scan of shuffles for prefixes), so every lane of
// a reduction gets a bit-identical value whatever the execution order.
// Reading a lane that is not active yields a value made of one repeated byte, zero unless the SIMD
// check asks for another (hardware leaves it unspecified).
#pragma once
#include "math.h"
#include "hooks.h"

#define __MSLSIM_LOC_PARAMS \
  const char* __file = __builtin_FILE(), unsigned __line = __builtin_LINE(), unsigned __col = __builtin_COLUMN()
#define __MSLSIM_LOC __file, __line, __col

namespace metal {
enum class mem_flags : unsigned {
  mem_none = 0,
  mem_device = 1,
  mem_threadgroup = 2,
  mem_texture = 4,
  mem_threadgroup_imageblock = 8,
  mem_object_data = 16,
};
constexpr mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(unsigned(a) | unsigned(b)); }
constexpr mem_flags operator&(mem_flags a, mem_flags b) { return mem_flags(unsigned(a) & unsigned(b)); }
constexpr mem_flags operator^(mem_flags a, mem_flags b) { return mem_flags(unsigned(a) ^ unsigned(b)); }
constexpr mem_flags operator~(mem_flags a) { return mem_flags(~unsigned(a) & 31u); }

inline void threadgroup_barrier(mem_flags f, __MSLSIM_LOC_PARAMS) {
  __mslsim_threadgroup_barrier(unsigned(f), __MSLSIM_LOC);
}
inline void simdgroup_barrier(mem_flags f, __MSLSIM_LOC_PARAMS) {
  __mslsim_simdgroup_barrier(unsigned(f), __MSLSIM_LOC);
}

// ---------------------------------------------------------------- core
// The value of a lane that takes no part (inactive or out of range): undefined in MSL.
template <class T> METAL_FUNC T __undefined_lane(unsigned lane, const char* f, unsigned l, unsigned c) {
  T r;
  __builtin_memset(&r, int(__mslsim_simd_inactive_read(lane, f, l, c)), sizeof(T));
  return r;
}
// The 32 contributions live in an array of the caller's, declared beside the record by
// __MSLSIM_LANES: nothing but the exchange writes that array, so the simulator's vector-lane path
// keeps one copy of it for all lanes (LaneVectoriser.h).
template <class T> struct __lanes {
  T* v;
  unsigned mask;  // active lanes
  unsigned me;    // calling lane
  const char* file;  // the call site, for reports of reads from inactive lanes
  unsigned line, column;
  bool active(unsigned l) const { return l < 32 && ((mask >> l) & 1u); }
  T at(unsigned l) const { return active(l) ? v[l] : __undefined_lane<T>(l, file, line, column); }
};
#define __MSLSIM_LANES(T, L) \
  T L##_values[32];          \
  __lanes<T> L { L##_values }
template <class T> METAL_FUNC void __exchange(__lanes<T>& L, const T& x, const char* f, unsigned l, unsigned c) {
  L.mask = __mslsim_simd_exchange(&x, L.v, sizeof(T), f, l, c);
  L.me = __mslsim_simd_lane();
  L.file = f;
  L.line = l;
  L.column = c;
}
// G = 32 for SIMD-group functions, 4 for quad-group functions.
template <unsigned G, class T, class Op>
METAL_FUNC T __reduce(const T& x, Op op, const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(T, L);
  __exchange(L, x, f, l, c);
  unsigned base = L.me & ~(G - 1);
  // Not started from x: computed from the exchanged values only, it is the same in every lane,
  // which the vector-lane path (LaneVectoriser.h) then computes once for the SIMD-group. The
  // calling lane is active, so the first assignment always happens.
  T acc{};
  bool first = true;
  for (unsigned i = base; i < base + G; ++i)
    if (L.active(i)) { acc = first ? L.v[i] : T(op(acc, L.v[i])); first = false; }
  return acc;
}
// Sums and products combine the lanes pairwise: the lanes [b, b + N) as the first half's result
// with the second half's, down to pairs of lanes, an inactive lane contributing the operation's
// identity. Five levels of independent operations where lane order chained 31, and the same bits
// in every lane and on every path. Written as recursion, not as an array and loops: the
// vector-lane path keeps each lane's own copy of a local array (LaneVectoriser.h).
template <unsigned N, class T, class Op>
METAL_FUNC T __pairwise(const __lanes<T>& L, unsigned b, const T& identity, Op op) {
  if constexpr (N == 1)
    return L.active(b) ? L.v[b] : identity;
  else
    return T(op(__pairwise<N / 2>(L, b, identity, op), __pairwise<N / 2>(L, b + N / 2, identity, op)));
}
template <unsigned G, class T, class Op>
METAL_FUNC T __reduce_pairwise(const T& x, T identity, Op op, const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(T, L);
  __exchange(L, x, f, l, c);
  return __pairwise<G>(L, L.me & ~(G - 1), identity, op);
}
// Prefix sums and products combine the lanes as a GPU's scan of shuffles does (Kogge-Stone): at
// level D = 1, 2, 4, ... each lane whose position in its group is at least D combines the value of
// the lane D below with its own, lower lane on the left; an inactive lane contributes the
// operation's identity (-0.0 or 1), and a lane with no active lane before it gets `empty` from
// the exclusive form. log2(G) levels of independent operations where lane order chained 31, the
// same bits in every lane and on every path (tests/conformance/simd.py computes this order).
//
// The generic form, for any element type: lane j's value at level K, from the exchanged values.
template <unsigned K, class T, class Op>
METAL_FUNC T __scan_level(const __lanes<T>& L, unsigned j, unsigned pos, const T& identity, Op op) {
  if constexpr (K == 0) {
    return L.active(j) ? L.v[j] : identity;
  } else {
    constexpr unsigned D = 1u << (K - 1);
    T own = __scan_level<K - 1>(L, j, pos, identity, op);
    return pos >= D ? T(op(__scan_level<K - 1>(L, j - D, pos - D, identity, op), own)) : own;
  }
}
// The same order on all 32 lanes at once, for element types a vector can hold: log2(G) shifts and
// vector operations on values the lanes share (the vector-lane path computes them once per
// SIMD-group and gives each lane its element: LaneVectoriser.cpp, an element taken at the lane).
template <class E> using __lanevec = E __attribute__((ext_vector_type(32)));
template <unsigned S> struct __bits_of_size;
template <> struct __bits_of_size<1> { typedef uchar type; };
template <> struct __bits_of_size<2> { typedef ushort type; };
template <> struct __bits_of_size<4> { typedef uint type; };
template <> struct __bits_of_size<8> { typedef ulong type; };
// Lane l of the result: v's lane l - D, `fill`'s below lane D.
template <int D, class V, int... I> METAL_FUNC V __lanes_up(const V& v, const V& fill, integer_sequence<int, I...>) {
  return __builtin_shufflevector(v, fill, (I >= D ? I - D : 32 + I)...);
}
// Lane l of the result: `later`'s where l's position in its group of G is at least D, else v's.
template <unsigned G, int D, class V, int... I>
METAL_FUNC V __lanes_from(const V& v, const V& later, integer_sequence<int, I...>) {
  return __builtin_shufflevector(v, later, (unsigned(I) % G >= unsigned(D) ? 32 + I : I)...);
}
// Lane l of the result: a's where `on` (all ones or zero) says so, else b's.
template <class E> METAL_FUNC __lanevec<E> __lanes_select(const __lanevec<int>& on, const __lanevec<E>& a, const __lanevec<E>& b) {
  typedef __lanevec<typename __bits_of_size<sizeof(E)>::type> U;
  U m = __builtin_convertvector(on, U);
  return __builtin_bit_cast(__lanevec<E>, (__builtin_bit_cast(U, a) & m) | (__builtin_bit_cast(U, b) & ~m));
}
template <unsigned G, int D, class A, class Op, class Seq>
METAL_FUNC void __scan_step(A& v, const A& identity, Op op, Seq s) {
  if constexpr (unsigned(D) < G) v = __lanes_from<G, D>(v, A(op(__lanes_up<D>(v, identity, s), v)), s);
}
// Integers are scanned as unsigned (wrapping, the same bits); floats as themselves.
template <class E, bool = __is_integral(E)> struct __scan_arith_of { typedef E type; };
template <class E> struct __scan_arith_of<E, true> { typedef typename make_unsigned<E>::type type; };
template <class E> using __scan_arith = typename __scan_arith_of<E>::type;
template <unsigned G, bool Inclusive, class E, class Op, int... I>
METAL_FUNC __lanevec<E> __scan_lanes(__lanevec<E> values, unsigned active, E identity, E empty, Op op,
                                     integer_sequence<int, I...> s) {
  typedef __lanevec<__scan_arith<E>> A;
  const __lanevec<unsigned> lane = {unsigned(I)...};
  const __lanevec<E> id = identity;
  A v = __builtin_bit_cast(A, __lanes_select(((active >> lane) & 1u) != 0u, values, id));
  const A ida = __builtin_bit_cast(A, id);
  __scan_step<G, 1>(v, ida, op, s);
  __scan_step<G, 2>(v, ida, op, s);
  __scan_step<G, 4>(v, ida, op, s);
  __scan_step<G, 8>(v, ida, op, s);
  __scan_step<G, 16>(v, ida, op, s);
  __lanevec<E> r = __builtin_bit_cast(__lanevec<E>, v);
  if constexpr (Inclusive) return r;
  const __lanevec<E> none = empty;
  const __lanevec<unsigned> before = active & ((1u << lane) - 1u) & ~((1u << (lane & ~(G - 1u))) - 1u);
  return __lanes_select(before != 0u, __lanes_from<G, 1>(none, __lanes_up<1>(r, none, s), s), none);
}
template <class X> constexpr bool __lane_vector_element = __is_arithmetic(X) && !__is_same(X, bool) && sizeof(X) <= 8;
// Component C of the 32 lanes' values, `all` being the lanes' values one after the other (S
// elements each), scanned; the element at the calling lane.
template <unsigned G, bool Inclusive, int C, int S, class E, class All, class Op, int... I>
METAL_FUNC E __scan_component(const All& all, unsigned active, unsigned me, E identity, E empty, Op op,
                              integer_sequence<int, I...> s) {
  __lanevec<E> v = __builtin_shufflevector(all, all, (I * S + C)...);
  return __scan_lanes<G, Inclusive>(v, active, identity, empty, op, s)[me];
}
template <unsigned G, bool Inclusive, class T, class E, class All, class Op, int... C>
METAL_FUNC void __scan_components(T& r, const All& all, const __lanes<T>& L, E identity, E empty, Op op,
                                  integer_sequence<int, C...>) {
  constexpr int S = int(sizeof(T) / sizeof(E));
  ((r.__e[C] = __scan_component<G, Inclusive, C, S>(all, L.mask, L.me, identity, empty, op,
                                                    make_integer_sequence<int, 32>())), ...);
}
template <unsigned G, bool Inclusive, class T, class Op>
METAL_FUNC T __prefix(const T& x, Op op, const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(T, L);
  __exchange(L, x, f, l, c);
  // Elements, not whole values: a vector made of them would be each lane's own memory on the
  // vector-lane path.
  typedef typename __vt<T>::elem E;
  const E identity = Op::template identity<E>(), empty = Op::template empty<E>();
  constexpr int N = __vt<T>::n;
  if constexpr (__lane_vector_element<E> && (N == 0 ? sizeof(T) == sizeof(E) : sizeof(T) % sizeof(E) == 0)) {
    constexpr int S = int(sizeof(T) / sizeof(E));  // elements per lane's value (a 3-vector takes 4)
    // One load of the lanes' values as the shared value it is (a copy into a local would be each
    // lane's own on the vector-lane path).
    typedef E __all __attribute__((ext_vector_type(32 * S), aligned(alignof(T)), may_alias));
    const __all all = *reinterpret_cast<const __all*>(L.v);
    if constexpr (N == 0) {
      return __scan_component<G, Inclusive, 0, 1>(all, L.mask, L.me, identity, empty, op, make_integer_sequence<int, 32>());
    } else {
      T r;
      __scan_components<G, Inclusive, T, E>(r, all, L, identity, empty, op, make_integer_sequence<int, N>());
      return r;
    }
  } else {
    constexpr unsigned K = G == 32 ? 5 : 2;
    unsigned pos = L.me & (G - 1);
    if constexpr (Inclusive) return __scan_level<K>(L, L.me, pos, T(identity), op);
    unsigned before = L.mask & ((1u << L.me) - 1u) & ~((1u << (L.me & ~(G - 1u))) - 1u);
    return before ? __scan_level<K>(L, L.me - 1, pos - 1, T(identity), op) : T(empty);
  }
}
enum __shuf_kind { __shuf_idx, __shuf_up, __shuf_down, __shuf_xor, __shuf_rot_up, __shuf_rot_down };
template <unsigned G, __shuf_kind K, class T>
METAL_FUNC T __shuffle(const T& x, unsigned arg, const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(T, L);
  __exchange(L, x, f, l, c);
  unsigned base = L.me & ~(G - 1), j = L.me - base, src;
  switch (K) {
    case __shuf_idx:
      if (arg >= G) return __undefined_lane<T>(arg, f, l, c);
      src = arg;
      break;
    case __shuf_up: if (j < arg) return x; src = j - arg; break;          // low lanes keep their value
    case __shuf_down: if (j + arg >= G) return x; src = j + arg; break;   // high lanes keep theirs
    case __shuf_xor: if ((j ^ arg) >= G) return x; src = j ^ arg; break;
    case __shuf_rot_up: src = (j + G - arg % G) % G; break;
    default: src = (j + arg) % G; break;
  }
  return L.at(base + src);
}
template <class T> struct __pair { T x, fill; };
template <unsigned G, bool Up, class T>
METAL_FUNC T __shuffle_fill(const T& x, const T& fill, unsigned delta, unsigned modulo, const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(__pair<T>, L);
  __exchange(L, __pair<T>{x, fill}, f, l, c);
  if (modulo == 0 || modulo > G) modulo = G;
  unsigned base = L.me & ~(G - 1), j = L.me - base, seg = j - j % modulo, k = j % modulo;
  if (Up) {
    if (k >= delta) return L.at(base + seg + k - delta).x;
    return L.at(base + seg + k + modulo - delta).fill;
  }
  if (k + delta < modulo) return L.at(base + seg + k + delta).x;
  return L.at(base + seg + k + delta - modulo).fill;
}
// Bits of the calling lane's group (bit 0 = first lane of the group) where b is true; *active gets
// the group's active lanes.
template <unsigned G> METAL_FUNC unsigned __ballot(bool b, const char* f, unsigned l, unsigned c, unsigned* active = nullptr) {
  __MSLSIM_LANES(bool, L);
  __exchange(L, b, f, l, c);
  unsigned base = L.me & ~(G - 1), r = 0, a = 0;
  for (unsigned i = base; i < base + G; ++i)
    if (L.active(i)) { a |= 1u << (i - base); if (L.v[i]) r |= 1u << (i - base); }
  if (active) *active = a;
  return r;
}
template <unsigned G> METAL_FUNC unsigned __active_mask(const char* f, unsigned l, unsigned c) {
  __MSLSIM_LANES(bool, L);
  __exchange(L, true, f, l, c);
  unsigned base = L.me & ~(G - 1);
  return G == 32 ? L.mask : (L.mask >> base) & ((1u << (G & 31u)) - 1u);
}

// identity: what an inactive lane contributes to a prefix (-0.0 leaves every float sum as it is);
// empty: the exclusive prefix of a lane with no active lane before it.
struct __op_add {
  template <class A> auto operator()(const A& a, const A& b) const { return a + b; }
  template <class E> static E identity() { return E(-E(0)); }
  template <class E> static E empty() { return E(0); }
};
struct __op_mul {
  template <class A> auto operator()(const A& a, const A& b) const { return a * b; }
  template <class E> static E identity() { return E(1); }
  template <class E> static E empty() { return E(1); }
};
struct __op_and { template <class A> auto operator()(const A& a, const A& b) const { return a & b; } };
struct __op_or { template <class A> auto operator()(const A& a, const A& b) const { return a | b; } };
struct __op_xor { template <class A> auto operator()(const A& a, const A& b) const { return a ^ b; } };
struct __op_min { template <class A> auto operator()(const A& a, const A& b) const { return metal::min(a, b); } };
struct __op_max { template <class A> auto operator()(const A& a, const A& b) const { return metal::max(a, b); } };

// ---------------------------------------------------------------- simd_vote
struct simd_vote {
  typedef uint64_t vote_t;
  constexpr explicit simd_vote(vote_t v = 0) : __v(v) {}
  constexpr explicit operator vote_t() const { return __v; }
  // Only the 32 lanes that exist on a 32-wide SIMD-group are looked at.
  constexpr bool all() const { return (__v & 0xffffffffu) == 0xffffffffu; }
  constexpr bool any() const { return (__v & 0xffffffffu) != 0; }
  vote_t __v;
};
struct quad_vote {
  typedef ushort vote_t;
  constexpr explicit quad_vote(vote_t v = 0) : __v(v) {}
  constexpr explicit operator vote_t() const { return __v; }
  constexpr bool all() const { return (__v & 0xfu) == 0xfu; }
  constexpr bool any() const { return (__v & 0xfu) != 0; }
  vote_t __v;
};

// ---------------------------------------------------------------- public functions (simd_ and quad_)
#define __MSLSIM_GROUP_FUNCS(P, G)                                                                   \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##sum(const X& x, __MSLSIM_LOC_PARAMS) {    \
    return __reduce_pairwise<G>(T(x), T(-0.0f), __op_add(), __MSLSIM_LOC); }                                    \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##product(const X& x, __MSLSIM_LOC_PARAMS) {\
    return __reduce_pairwise<G>(T(x), T(1), __op_mul(), __MSLSIM_LOC); }                                            \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##min(const X& x, __MSLSIM_LOC_PARAMS) {    \
    return __reduce<G>(T(x), __op_min(), __MSLSIM_LOC); }                                            \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##max(const X& x, __MSLSIM_LOC_PARAMS) {    \
    return __reduce<G>(T(x), __op_max(), __MSLSIM_LOC); }                                            \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##and(const X& x, __MSLSIM_LOC_PARAMS) {    \
    return __reduce<G>(T(x), __op_and(), __MSLSIM_LOC); }                                            \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##or(const X& x, __MSLSIM_LOC_PARAMS) {     \
    return __reduce<G>(T(x), __op_or(), __MSLSIM_LOC); }                                             \
  template <class X, class T = __vec_of<X>> METAL_FUNC T P##xor(const X& x, __MSLSIM_LOC_PARAMS) {    \
    return __reduce<G>(T(x), __op_xor(), __MSLSIM_LOC); }                                            \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##prefix_inclusive_sum(const X& x, __MSLSIM_LOC_PARAMS) {                            \
    return __prefix<G, true>(T(x), __op_add(), __MSLSIM_LOC); }                                        \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##prefix_exclusive_sum(const X& x, __MSLSIM_LOC_PARAMS) {                            \
    return __prefix<G, false>(T(x), __op_add(), __MSLSIM_LOC); }                                       \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##prefix_inclusive_product(const X& x, __MSLSIM_LOC_PARAMS) {                        \
    return __prefix<G, true>(T(x), __op_mul(), __MSLSIM_LOC); }                                        \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##prefix_exclusive_product(const X& x, __MSLSIM_LOC_PARAMS) {                        \
    return __prefix<G, false>(T(x), __op_mul(), __MSLSIM_LOC); }                                       \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle(const X& x, ushort lane, __MSLSIM_LOC_PARAMS) {                            \
    return __shuffle<G, __shuf_idx>(T(x), lane, __MSLSIM_LOC); }                                     \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##broadcast(const X& x, ushort lane, __MSLSIM_LOC_PARAMS) {                          \
    return __shuffle<G, __shuf_idx>(T(x), lane, __MSLSIM_LOC); }                                     \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle_up(const X& x, ushort delta, __MSLSIM_LOC_PARAMS) {                        \
    return __shuffle<G, __shuf_up>(T(x), delta, __MSLSIM_LOC); }                                     \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle_down(const X& x, ushort delta, __MSLSIM_LOC_PARAMS) {                      \
    return __shuffle<G, __shuf_down>(T(x), delta, __MSLSIM_LOC); }                                   \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle_xor(const X& x, ushort mask, __MSLSIM_LOC_PARAMS) {                        \
    return __shuffle<G, __shuf_xor>(T(x), mask, __MSLSIM_LOC); }                                     \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle_rotate_up(const X& x, ushort delta, __MSLSIM_LOC_PARAMS) {                 \
    return __shuffle<G, __shuf_rot_up>(T(x), delta, __MSLSIM_LOC); }                                 \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##shuffle_rotate_down(const X& x, ushort delta, __MSLSIM_LOC_PARAMS) {               \
    return __shuffle<G, __shuf_rot_down>(T(x), delta, __MSLSIM_LOC); }                               \
  template <class X, class Y, class T = __vec_of<X>>                                                 \
  METAL_FUNC T P##shuffle_and_fill_up(const X& x, const Y& fill, ushort delta, __MSLSIM_LOC_PARAMS) {\
    return __shuffle_fill<G, true>(T(x), T(fill), delta, G, __MSLSIM_LOC); }                         \
  template <class X, class Y, class T = __vec_of<X>>                                                 \
  METAL_FUNC T P##shuffle_and_fill_up(const X& x, const Y& fill, ushort delta, ushort modulo,        \
                                      __MSLSIM_LOC_PARAMS) {                                         \
    return __shuffle_fill<G, true>(T(x), T(fill), delta, modulo, __MSLSIM_LOC); }                    \
  template <class X, class Y, class T = __vec_of<X>>                                                 \
  METAL_FUNC T P##shuffle_and_fill_down(const X& x, const Y& fill, ushort delta, __MSLSIM_LOC_PARAMS) {\
    return __shuffle_fill<G, false>(T(x), T(fill), delta, G, __MSLSIM_LOC); }                        \
  template <class X, class Y, class T = __vec_of<X>>                                                 \
  METAL_FUNC T P##shuffle_and_fill_down(const X& x, const Y& fill, ushort delta, ushort modulo,      \
                                        __MSLSIM_LOC_PARAMS) {                                       \
    return __shuffle_fill<G, false>(T(x), T(fill), delta, modulo, __MSLSIM_LOC); }                   \
  template <class X, class T = __vec_of<X>>                                                          \
  METAL_FUNC T P##broadcast_first(const X& x, __MSLSIM_LOC_PARAMS) {                                 \
    __MSLSIM_LANES(T, L);                                                                            \
    __exchange(L, T(x), __MSLSIM_LOC);                                                               \
    unsigned base = L.me & ~(G - 1u);                                                                \
    for (unsigned i = base; i < base + G; ++i) if (L.active(i)) return L.v[i];                       \
    return T(x);                                                                                     \
  }                                                                                                  \
  inline bool P##all(bool b, __MSLSIM_LOC_PARAMS) {                                                  \
    unsigned a; unsigned v = __ballot<G>(b, __MSLSIM_LOC, &a); return v == a; }                      \
  inline bool P##any(bool b, __MSLSIM_LOC_PARAMS) { return __ballot<G>(b, __MSLSIM_LOC) != 0; }      \
  inline bool P##is_first(__MSLSIM_LOC_PARAMS) {                                                     \
    unsigned m = __active_mask<G>(__MSLSIM_LOC);                                                     \
    return m && (__mslsim_simd_lane() & (G - 1u)) == unsigned(__builtin_ctz(m)); }
__MSLSIM_GROUP_FUNCS(simd_, 32u)
__MSLSIM_GROUP_FUNCS(quad_, 4u)
#undef __MSLSIM_GROUP_FUNCS

inline simd_vote simd_ballot(bool b, __MSLSIM_LOC_PARAMS) { return simd_vote(__ballot<32>(b, __MSLSIM_LOC)); }
inline simd_vote simd_active_threads_mask(__MSLSIM_LOC_PARAMS) { return simd_vote(__active_mask<32>(__MSLSIM_LOC)); }
inline quad_vote quad_ballot(bool b, __MSLSIM_LOC_PARAMS) { return quad_vote(ushort(__ballot<4>(b, __MSLSIM_LOC))); }
inline quad_vote quad_active_threads_mask(__MSLSIM_LOC_PARAMS) { return quad_vote(ushort(__active_mask<4>(__MSLSIM_LOC))); }
}  // namespace metal
