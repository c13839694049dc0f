// MLX-style header code: METAL_FUNC helpers, __METAL_VERSION__ guards, if constexpr over
// type traits, static_assert, decltype and auto, WorkPerThread-like constexpr structs.
#include <metal_stdlib>
using namespace metal;

#if defined(__METAL_VERSION__) && __METAL_VERSION__ >= 310
typedef bfloat bfloat16_t;
#endif
#if !defined(__METAL__)
#error "expected __METAL__"
#endif

template <typename T>
struct WorkPerThread {
  static_assert(sizeof(T) <= 8, "Type too large");
  static constexpr int constexpr_n = 8 / sizeof(T);
  static constexpr int n = constexpr_n > 1 ? constexpr_n : 1;
};

template <typename T>
METAL_FUNC T safe_abs(T x) {
  if constexpr (metal::is_unsigned_v<T>) {
    return x;
  } else if constexpr (metal::is_integral_v<T>) {
    return x < T(0) ? T(-x) : x;
  } else {
    return metal::abs(x);
  }
}

template <typename T, int N = WorkPerThread<T>::n>
[[kernel]] void abs_n(device const T* in [[buffer(0)]], device T* out [[buffer(1)]],
                      constant uint& size [[buffer(2)]], uint index [[thread_position_in_grid]]) {
  auto base = index * N;
  using value_t = decltype(in[0] + in[0]);
  for (int i = 0; i < N && base + i < size; ++i) out[base + i] = T(value_t(safe_abs(in[base + i])));
}

template [[host_name("abs_float")]] [[kernel]] decltype(abs_n<float>) abs_n<float>;
template [[host_name("abs_bfloat")]] [[kernel]] decltype(abs_n<bfloat16_t>) abs_n<bfloat16_t>;
template [[host_name("abs_uchar")]] [[kernel]] decltype(abs_n<uint8_t>) abs_n<uint8_t>;
template [[host_name("abs_short")]] [[kernel]] decltype(abs_n<int16_t>) abs_n<int16_t>;
