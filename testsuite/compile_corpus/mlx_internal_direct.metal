// Apple-internal __metal_* builtins called directly, each by name, with the fast-math flag
// macros MLX passes (__METAL_FAST_MATH__, __METAL_PRECISE_MATH__, __METAL_MAYBE_FAST_MATH__).
#include <metal_stdlib>
using namespace metal;

kernel void internal_math(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
                          uint gid [[thread_position_in_grid]]) {
  const bool f = __METAL_FAST_MATH__, p = __METAL_PRECISE_MATH__, m = __METAL_MAYBE_FAST_MATH__;
  float v = x[gid], a = fabs(v) + 0.5f;
  float r = __metal_fabs(v, f) + __metal_acos(0.5f, p) + __metal_acosh(a + 1.0f, m) + __metal_asin(0.25f, f) +
            __metal_asinh(v, p) + __metal_atan(v, m) + __metal_atan2(v, a, f) + __metal_atanh(0.5f, p) +
            __metal_ceil(v, m) + __metal_cos(v, f) + __metal_cosh(v, p) + __metal_cospi(v, m) +
            __metal_divide(v, a, f) + __metal_exp(v, p) + __metal_exp10(v, m) + __metal_exp2(v, f) +
            __metal_floor(v, p) + __metal_fma(v, v, a) + __metal_fmax(v, a, m) + __metal_fmax3(v, a, 1.0f, f) +
            __metal_fmedian3(v, a, 1.0f, p) + __metal_fmin(v, a, m) + __metal_fmin3(v, a, 1.0f, f) +
            __metal_fmod(v, a, p) + __metal_fract(v, m) + __metal_log(a, f) + __metal_log10(a, p) +
            __metal_log2(a, m) + __metal_nextafter(v, a) + __metal_pow(a, v, f) + __metal_powr(a, 2.0f, p) +
            __metal_rint(v, m) + __metal_round(v, f) + __metal_rsqrt(a, p) + __metal_sin(v, m) +
            __metal_sinh(v, f) + __metal_sinpi(v, p) + __metal_sqrt(a, m) + __metal_tan(v, f) +
            __metal_tanh(v, p) + __metal_tanpi(v, m) + __metal_trunc(v, f);
  int e;
  float mant = __metal_frexp(v, &e);
  r += __metal_ldexp(mant, e, f);
  out[gid] = r;
}

kernel void internal_simd(device const float* x [[buffer(0)]], device float* out [[buffer(1)]],
                          device ushort* lanes [[buffer(2)]], uint gid [[thread_position_in_grid]]) {
  float v = x[gid];
  ushort u = as_type<ushort>(half(v));
  ushort width = __metal_get_simdgroup_size(ushort());
  ushort lane = __metal_get_thread_index_in_simdgroup(ushort());
  ushort s = __metal_simd_broadcast(u, 0) ^ __metal_simd_shuffle(u, 1) ^ __metal_simd_shuffle_up(u, 1) ^
             __metal_simd_shuffle_down(u, 1) ^ __metal_simd_shuffle_xor(u, 2) ^ __metal_simd_shuffle_rotate_up(u, 3) ^
             __metal_simd_shuffle_rotate_down(u, 3) ^ __metal_simd_shuffle_and_fill_up(u, u, 1, width) ^
             __metal_simd_shuffle_and_fill_down(u, u, 1, width) ^ __metal_simd_xor(u);
  float r = __metal_simd_sum(v) + __metal_simd_product(v) + __metal_simd_max(v) + __metal_simd_min(v) +
            __metal_simd_prefix_inclusive_sum(v) + __metal_simd_prefix_exclusive_sum(v) +
            __metal_simd_prefix_inclusive_product(v) + __metal_simd_prefix_exclusive_product(v);
  out[gid] = r;
  lanes[gid] = s + lane;
}
