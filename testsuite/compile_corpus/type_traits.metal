// Generic code over metal:: type traits: enable_if_t, conditional_t, is_same_v and friends,
// integral_constant, void_t detection, remove_cv_t and remove_addrspace_t, bool_constant subclasses.
#include <metal_type_traits>
#include <metal_stdlib>
using namespace metal;

// Metal's library has no void_t or is_empty; kernel libraries add them to namespace metal
// themselves (as MLX's steel headers do), and unlock the internal _disjunction.
#pragma METAL internals : enable
namespace metal {
template <typename T>
struct is_empty : metal::bool_constant<__is_empty(T)> {};
template <typename T>
constexpr constant bool is_empty_v = is_empty<T>::value;
template <typename... Ts>
struct make_void {
  typedef void type;
};
template <typename... Ts>
using void_t = typename make_void<Ts...>::type;
// Pointer element type for each address space: four partial specialisations that differ only
// by address space.
template <typename T> struct pointer_element {};
template <typename T> struct pointer_element<thread T*> { using type = remove_cv_t<T>; };
template <typename T> struct pointer_element<device T*> { using type = remove_cv_t<T>; };
template <typename T> struct pointer_element<constant T*> { using type = remove_cv_t<T>; };
template <typename T> struct pointer_element<threadgroup T*> { using type = remove_cv_t<T>; };
template <typename T> using pointer_element_t = typename pointer_element<remove_cv_t<T>>::type;
}  // namespace metal
#pragma METAL internals : disable
static_assert(metal::_disjunction<metal::is_same<int, float>, metal::is_same<int, int>>::value, "_disjunction");

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
  metal::pointer_element_t<device float*> total = float(widen(a[i])) + widen(b[i]) + float(widen(uchar(i)));
  out[i] = total;
}
