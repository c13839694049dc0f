// Compile-time integers as types (steel-style Int<N>): operators on integral constants, and
// overloads guarded by `typename _E = metal::enable_if<cond>` (a false condition removes the
// overload, so x * Int<1>{} is an ordinary product and only Int<0>{} short-circuits).
#include <metal_stdlib>
using namespace metal;

namespace tiles {
template <typename T, T v>
struct ic {
  typedef T value_type;
  static constant constexpr T value = v;
  METAL_FUNC constexpr operator value_type() const { return value; }
};
template <int v>
using Int = ic<int, v>;

template <typename T, T a, typename U, U b>
METAL_FUNC constexpr auto operator+(ic<T, a>, ic<U, b>) {
  constexpr auto r = a + b;
  return ic<decltype(r), r>{};
}
// x * Int<0> is the constant 0; for other constants the guard removes this overload.
template <typename T, T v, typename U, typename _E = metal::enable_if<metal::is_integral_v<U> && v == 0>>
METAL_FUNC constexpr ic<decltype(T(0) * U(0)), 0> operator*(U, ic<T, v>) {
  return {};
}

template <typename Ptr, typename StrX, typename StrY>
METAL_FUNC float load2(Ptr src, StrX sx, StrY sy) {
  float acc = 0;
  for (short i = 0; i < 2; ++i)
    for (short j = 0; j < 2; ++j) acc += src[i * sx + j * sy];
  return acc;
}
}  // namespace tiles

kernel void strided_pairs(device const float* src [[buffer(0)]], device float* out [[buffer(1)]],
                          uint gid [[thread_position_in_grid]]) {
  using namespace tiles;
  constexpr auto four = Int<1>{} + Int<3>{};
  static_assert(decltype(four)::value == 4, "constant folding through types");
  out[gid] = load2(src + gid * 4, Int<2>{}, Int<1>{}) + float(short(5) * Int<0>{});
}
