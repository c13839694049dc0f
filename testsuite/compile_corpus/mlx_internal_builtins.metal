// bfloat overloads written the way MLX's bf16 math header does it: non-template functions in
// metal::, metal::fast:: and metal::precise:: that call Apple's internal __metal_* builtins with
// a fast-math flag, and SIMD overloads that go through 16-bit integers.
#include <metal_stdlib>
using namespace metal;

typedef bfloat bfloat16_t;

#define define_bf_unary(name, flag) \
  METAL_FUNC bfloat16_t name(bfloat16_t x) { return static_cast<bfloat16_t>(__metal_##name(static_cast<float>(x), flag)); }
#define define_bf_binary(name, flag)                                                             \
  METAL_FUNC bfloat16_t name(bfloat16_t x, bfloat16_t y) {                                       \
    return static_cast<bfloat16_t>(__metal_##name(static_cast<float>(x), static_cast<float>(y), flag)); \
  }
#define define_bf_ternary(name, flag)                                                             \
  METAL_FUNC bfloat16_t name(bfloat16_t x, bfloat16_t y, bfloat16_t z) {                          \
    return static_cast<bfloat16_t>(                                                               \
        __metal_##name(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z), flag)); \
  }
#define define_bf_all(flag)                                                                       \
  define_bf_unary(fabs, flag) define_bf_unary(acos, flag) define_bf_unary(acosh, flag)            \
  define_bf_unary(asin, flag) define_bf_unary(asinh, flag) define_bf_unary(atan, flag)            \
  define_bf_unary(atanh, flag) define_bf_unary(ceil, flag) define_bf_unary(cos, flag)             \
  define_bf_unary(cosh, flag) define_bf_unary(cospi, flag) define_bf_unary(exp, flag)             \
  define_bf_unary(exp10, flag) define_bf_unary(exp2, flag) define_bf_unary(floor, flag)           \
  define_bf_unary(fract, flag) define_bf_unary(log, flag) define_bf_unary(log10, flag)            \
  define_bf_unary(log2, flag) define_bf_unary(rint, flag) define_bf_unary(round, flag)            \
  define_bf_unary(rsqrt, flag) define_bf_unary(sin, flag) define_bf_unary(sinh, flag)             \
  define_bf_unary(sinpi, flag) define_bf_unary(sqrt, flag) define_bf_unary(tan, flag)             \
  define_bf_unary(tanh, flag) define_bf_unary(tanpi, flag) define_bf_unary(trunc, flag)           \
  define_bf_binary(atan2, flag) define_bf_binary(divide, flag) define_bf_binary(fmax, flag)       \
  define_bf_binary(fmin, flag) define_bf_binary(fmod, flag) define_bf_binary(pow, flag)           \
  define_bf_binary(powr, flag) define_bf_ternary(fmax3, flag) define_bf_ternary(fmin3, flag)      \
  define_bf_ternary(fmedian3, flag)                                                               \
  METAL_FUNC bfloat16_t fma(bfloat16_t x, bfloat16_t y, bfloat16_t z) {                           \
    return static_cast<bfloat16_t>(__metal_fma(float(x), float(y), float(z)));                    \
  }                                                                                               \
  METAL_FUNC bfloat16_t frexp(bfloat16_t x, thread int& e) {                                      \
    return static_cast<bfloat16_t>(__metal_frexp(float(x), &e));                                  \
  }                                                                                               \
  METAL_FUNC bfloat16_t ldexp(bfloat16_t x, int k) { return static_cast<bfloat16_t>(__metal_ldexp(float(x), k, flag)); } \
  METAL_FUNC bfloat16_t nextafter(bfloat16_t x, bfloat16_t y) {                                   \
    return static_cast<bfloat16_t>(__metal_nextafter(float(x), float(y)));                        \
  }

namespace metal {
define_bf_all(__METAL_MAYBE_FAST_MATH__)
namespace fast {
define_bf_all(__METAL_FAST_MATH__)
}
namespace precise {
define_bf_all(__METAL_PRECISE_MATH__)
}

#define bf_to_u16(x) as_type<uint16_t>(x)
#define u16_to_bf(x) as_type<bfloat16_t>(x)
METAL_FUNC bfloat16_t simd_broadcast(bfloat16_t d, ushort l) { return u16_to_bf(__metal_simd_broadcast(bf_to_u16(d), l)); }
METAL_FUNC bfloat16_t simd_shuffle(bfloat16_t d, ushort l) { return u16_to_bf(__metal_simd_shuffle(bf_to_u16(d), l)); }
METAL_FUNC bfloat16_t simd_shuffle_up(bfloat16_t d, ushort k) { return u16_to_bf(__metal_simd_shuffle_up(bf_to_u16(d), k)); }
METAL_FUNC bfloat16_t simd_shuffle_down(bfloat16_t d, ushort k) { return u16_to_bf(__metal_simd_shuffle_down(bf_to_u16(d), k)); }
METAL_FUNC bfloat16_t simd_shuffle_xor(bfloat16_t d, ushort k) { return u16_to_bf(__metal_simd_shuffle_xor(bf_to_u16(d), k)); }
METAL_FUNC bfloat16_t simd_shuffle_rotate_up(bfloat16_t d, ushort k) {
  return u16_to_bf(__metal_simd_shuffle_rotate_up(bf_to_u16(d), k));
}
METAL_FUNC bfloat16_t simd_shuffle_rotate_down(bfloat16_t d, ushort k) {
  return u16_to_bf(__metal_simd_shuffle_rotate_down(bf_to_u16(d), k));
}
METAL_FUNC bfloat16_t simd_shuffle_and_fill_up(bfloat16_t d, bfloat16_t f, ushort k) {
  return u16_to_bf(__metal_simd_shuffle_and_fill_up(bf_to_u16(d), bf_to_u16(f), k, __metal_get_simdgroup_size(ushort())));
}
METAL_FUNC bfloat16_t simd_shuffle_and_fill_down(bfloat16_t d, bfloat16_t f, ushort k, ushort m) {
  return u16_to_bf(__metal_simd_shuffle_and_fill_down(bf_to_u16(d), bf_to_u16(f), k, m));
}
METAL_FUNC bfloat16_t simd_sum(bfloat16_t d) { return static_cast<bfloat16_t>(__metal_simd_sum(static_cast<float>(d))); }
METAL_FUNC bfloat16_t simd_product(bfloat16_t d) { return static_cast<bfloat16_t>(__metal_simd_product(float(d))); }
METAL_FUNC bfloat16_t simd_max(bfloat16_t d) { return static_cast<bfloat16_t>(__metal_simd_max(float(d))); }
METAL_FUNC bfloat16_t simd_min(bfloat16_t d) { return static_cast<bfloat16_t>(__metal_simd_min(float(d))); }
METAL_FUNC bfloat16_t simd_prefix_inclusive_sum(bfloat16_t d) { return bfloat16_t(__metal_simd_prefix_inclusive_sum(float(d))); }
METAL_FUNC bfloat16_t simd_prefix_exclusive_sum(bfloat16_t d) { return bfloat16_t(__metal_simd_prefix_exclusive_sum(float(d))); }
METAL_FUNC bfloat16_t simd_prefix_inclusive_product(bfloat16_t d) { return bfloat16_t(__metal_simd_prefix_inclusive_product(float(d))); }
METAL_FUNC bfloat16_t simd_prefix_exclusive_product(bfloat16_t d) { return bfloat16_t(__metal_simd_prefix_exclusive_product(float(d))); }
METAL_FUNC uint16_t simd_xor_bits(bfloat16_t d) { return __metal_simd_xor(bf_to_u16(d)); }
}  // namespace metal

kernel void bf16_ops(device const bfloat16_t* x [[buffer(0)]], device bfloat16_t* y [[buffer(1)]],
                     uint gid [[thread_position_in_grid]]) {
  bfloat16_t v = x[gid];
  bfloat16_t a = metal::exp(v) + metal::fast::tanh(v) + metal::precise::sqrt(metal::fabs(v)) + metal::fma(v, v, v);
  int e;
  bfloat16_t m = metal::frexp(v, e);
  bfloat16_t r = metal::ldexp(m, e) + metal::nextafter(v, a) + metal::fmedian3(v, a, m);
  bfloat16_t s = metal::simd_sum(a) + metal::simd_shuffle_down(r, 1) + metal::simd_shuffle_and_fill_up(v, r, 2) +
                 metal::simd_prefix_exclusive_sum(v) + metal::simd_max(v);
  ushort lane = __metal_get_thread_index_in_simdgroup(ushort());
  y[gid] = s + bfloat16_t(float(lane) * 0.0f);
}
