// Generic code over metal:: type traits: enable_if_t, conditional_t, is_same_v and friends,
// integral_constant, void_t detection, remove_cv_t and remove_addrspace_t, bool_constant subclasses.
#include <metal_type_traits>
#include <metal_stdlib>
using namespace metal;

template <typename T>
struct is_complex_like : metal::bool_constant<false> {};
struct cplx { float re, im; };
template <>
struct is_complex_like<cplx> : metal::true_type {};

template <typename T, typename = void>
struct has_value_type : metal::false_type {};
template <typename T>
struct has_value_type<T, metal::void_t<typename T::value_type>> : metal::true_type {};

template <typename T>
using accum_t = metal::conditional_t<metal::is_floating_point_v<T>, float,
                                     metal::conditional_t<metal::is_signed_v<T>, int, uint>>;

template <typename T, metal::enable_if_t<metal::is_integral_v<T>, bool> = true>
METAL_FUNC accum_t<T> widen(T x) { return accum_t<T>(x); }
template <typename T, typename metal::enable_if<!metal::is_integral<T>::value, int>::type = 0>
METAL_FUNC float widen(T x) { return float(x); }

struct empty_tag {};
static_assert(metal::is_empty_v<empty_tag> && __is_empty(empty_tag), "empty");
static_assert(metal::is_same_v<metal::remove_cv_t<const volatile int>, int>, "remove_cv");
static_assert(metal::is_same<metal::remove_addrspace_t<float>, float>::value, "remove_addrspace");
static_assert(metal::is_unsigned_v<uint> && metal::is_convertible_v<half, float>, "traits");
static_assert(metal::integral_constant<int, 3>::value == 3, "integral_constant");
static_assert(is_complex_like<cplx>::value && !is_complex_like<float>::value, "derived from bool_constant");
static_assert(has_value_type<float4>::value && !has_value_type<float>::value, "void_t");

kernel void widen_sum(device const short* a [[buffer(0)]], device const half* b [[buffer(1)]],
                      device float* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  out[i] = float(widen(a[i])) + widen(b[i]) + float(widen(uchar(i)));
}
