// mslsim's stand-in for MLX's `metal::utils()` preamble (MLX's bf16.h, bf16_math.h, complex.h,
// defines.h, logging.h and utils.h), which `mx.fast.metal_kernel` puts in front of every generated
// kernel. Written for mslsim from the behaviour MLX documents and relies on; it declares the same
// public names with the same semantics, but none of Apple's internal __metal_* builtins.
//
// The front end force-includes this after prelude.h and before the user's text. Embedded headers
// are not passed through the source rewriter, so attribute lists here are written in the GNU
// spelling the rewriter would produce (see instantiate_kernel).
//
// Kept small on purpose: it is parsed for every MLX kernel. Most of what MLX's bf16_math.h adds
// (bfloat overloads of the math and SIMD permute functions) is already provided by the templates of
// <metal_stdlib>, which compute bfloat in float and round once; only the SIMD reductions need
// overloads here, because the generic ones would round after every lane.
#pragma once
#include <metal_stdlib>

// ================================================================ bf16.h
typedef metal::bfloat bfloat16_t;
METAL_FUNC uint16_t bfloat16_to_uint16(const bfloat16_t x) { return metal::as_type<uint16_t>(x); }
METAL_FUNC bfloat16_t uint16_to_bfloat16(const uint16_t x) { return metal::as_type<bfloat16_t>(x); }

// ================================================================ bf16_math.h (what is missing)
// SIMD-group reductions of bfloat: reduce in float, round once (as MLX does via float builtins).
// The call site is forwarded like simd.h's own functions do, so diagnostics name the user's line.
#ifndef __MSLSIM_LOC_PARAMS
#define __MSLSIM_LOC_PARAMS \
  const char* __file = __builtin_FILE(), unsigned __line = __builtin_LINE(), unsigned __col = __builtin_COLUMN()
#define __MSLSIM_LOC __file, __line, __col
#endif
namespace metal {
#define __MLX_BF_SIMD(name)                                                     \
  METAL_FUNC bfloat name(bfloat x, __MSLSIM_LOC_PARAMS) {                       \
    return bfloat(name(float(x), __MSLSIM_LOC));                                \
  }
__MLX_BF_SIMD(simd_sum)
__MLX_BF_SIMD(simd_product)
__MLX_BF_SIMD(simd_prefix_inclusive_sum)
__MLX_BF_SIMD(simd_prefix_exclusive_sum)
__MLX_BF_SIMD(simd_prefix_inclusive_product)
__MLX_BF_SIMD(simd_prefix_exclusive_product)
#undef __MLX_BF_SIMD
// MLX's simd_xor(bfloat) xors the float representations of the lanes.
METAL_FUNC bfloat simd_xor(bfloat x, __MSLSIM_LOC_PARAMS) {
  return bfloat(as_type<float>(simd_xor(as_type<uint>(float(x)), __MSLSIM_LOC)));
}
}  // namespace metal

// ================================================================ complex.h
template <typename T> struct complex_t;
template <typename T> constexpr bool is_complex_v = false;
template <typename T> constexpr bool is_complex_v<complex_t<T>> = true;
// bfloat converts to and from float only explicitly, but a static_cast works.
template <typename From, typename To>
constexpr bool is_lane_convertible_v =
    metal::is_convertible_v<From, To> ||
    (metal::is_same_v<To, bfloat16_t> && metal::is_convertible_v<From, float>) ||
    (metal::is_same_v<From, bfloat16_t> && metal::is_convertible_v<float, To>);

// Layout: real then imag, no padding (complex64_t is 8 bytes, like MLX's complex64 buffers).
template <typename T> struct complex_t {
  using value_type = T;
  T real;
  T imag;

  constexpr complex_t() : real(0), imag(0) {}
  constexpr complex_t(T re, T im) : real(re), imag(im) {}
  // From a scalar: imag = 0 (implicit, as in MLX).
  template <typename U, metal::enable_if_t<!is_complex_v<U> && is_lane_convertible_v<U, T>, int> = 0>
  constexpr complex_t(U x) : real(static_cast<T>(x)), imag(static_cast<T>(0)) {}
  // From a complex of another element type.
  template <typename U, metal::enable_if_t<!metal::is_same_v<U, T> && is_lane_convertible_v<U, T>, int> = 0>
  constexpr complex_t(complex_t<U> z) : real(static_cast<T>(z.real)), imag(static_cast<T>(z.imag)) {}
  // To and from the two-lane vector (x = real, y = imag).
  complex_t(metal::vec<T, 2> v) : real(v.x), imag(v.y) {}
  operator metal::vec<T, 2>() const { return metal::vec<T, 2>(real, imag); }
  // To a scalar: the real part (implicit, as in MLX).
  template <typename U, metal::enable_if_t<!is_complex_v<U> && is_lane_convertible_v<T, U>, int> = 0>
  constexpr operator U() const { return static_cast<U>(real); }
};
using complex32_t = complex_t<half>;
using complex64_t = complex_t<float>;
static_assert(sizeof(complex64_t) == 8 && alignof(complex64_t) == 4, "complex64_t layout");
static_assert(sizeof(complex32_t) == 4, "complex32_t layout");

// Operators are templates over complex_t<T> like MLX's, so the same expressions resolve (or fail
// to) the same way. Additions beyond MLX, which does not compile these forms: complex*scalar,
// scalar*complex, complex/scalar, !=, and -=, *=, /=, and += with a scalar.
template <typename T> constexpr complex_t<T> operator-(complex_t<T> x) { return {-x.real, -x.imag}; }
// Ordering is lexicographic: real part first, then imaginary part.
template <typename T> constexpr bool operator>=(complex_t<T> a, complex_t<T> b) {
  return a.real > b.real || (a.real == b.real && a.imag >= b.imag);
}
template <typename T> constexpr bool operator>(complex_t<T> a, complex_t<T> b) {
  return a.real > b.real || (a.real == b.real && a.imag > b.imag);
}
template <typename T> constexpr bool operator<=(complex_t<T> a, complex_t<T> b) { return b >= a; }
template <typename T> constexpr bool operator<(complex_t<T> a, complex_t<T> b) { return b > a; }
template <typename T> constexpr bool operator==(complex_t<T> a, complex_t<T> b) {
  return a.real == b.real && a.imag == b.imag;
}
template <typename T> constexpr bool operator!=(complex_t<T> a, complex_t<T> b) { return !(a == b); }

template <typename T, typename U>
using __mlx_scalar_for = metal::enable_if_t<!is_complex_v<U> && is_lane_convertible_v<U, T>, int>;

template <typename T> constexpr complex_t<T> operator+(complex_t<T> a, complex_t<T> b) {
  return {a.real + b.real, a.imag + b.imag};
}
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator+(U a, complex_t<T> b) { return {static_cast<T>(a) + b.real, b.imag}; }
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator+(complex_t<T> a, U b) { return {a.real + static_cast<T>(b), a.imag}; }

template <typename T> constexpr complex_t<T> operator-(complex_t<T> a, complex_t<T> b) {
  return {a.real - b.real, a.imag - b.imag};
}
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator-(U a, complex_t<T> b) { return {static_cast<T>(a) - b.real, -b.imag}; }
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator-(complex_t<T> a, U b) { return {a.real - static_cast<T>(b), a.imag}; }

template <typename T> constexpr complex_t<T> operator*(complex_t<T> a, complex_t<T> b) {
  return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator*(U a, complex_t<T> b) { return {static_cast<T>(a) * b.real, static_cast<T>(a) * b.imag}; }
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator*(complex_t<T> a, U b) { return {a.real * static_cast<T>(b), a.imag * static_cast<T>(b)}; }

// Textbook division (no scaling), as MLX: (a * conj(b)) / |b|^2.
template <typename T> constexpr complex_t<T> operator/(complex_t<T> a, complex_t<T> b) {
  T d = b.real * b.real + b.imag * b.imag;
  T x = a.real * b.real + a.imag * b.imag;
  T y = a.imag * b.real - a.real * b.imag;
  return {x / d, y / d};
}
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator/(U a, complex_t<T> b) {
  T s = static_cast<T>(a);
  T d = b.real * b.real + b.imag * b.imag;
  return {(s * b.real) / d, (-s * b.imag) / d};
}
template <typename T, typename U, __mlx_scalar_for<T, U> = 0>
constexpr complex_t<T> operator/(complex_t<T> a, U b) { return {a.real / static_cast<T>(b), a.imag / static_cast<T>(b)}; }

// Componentwise floored remainder (the result takes the divisor's sign), truncating the quotient
// through int64 as MLX does.
template <typename T> constexpr T __mlx_floor_rem(T a, T b) {
  T r = a - b * static_cast<T>(static_cast<int64_t>(a / b));
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T> constexpr complex_t<T> operator%(complex_t<T> a, complex_t<T> b) {
  return {__mlx_floor_rem(a.real, b.real), __mlx_floor_rem(a.imag, b.imag)};
}

template <typename T> constexpr complex_t<T>& operator+=(complex_t<T>& a, typename metal::type_identity<complex_t<T>>::type b) {
  a.real += b.real; a.imag += b.imag; return a;
}
template <typename T> constexpr complex_t<T>& operator-=(complex_t<T>& a, typename metal::type_identity<complex_t<T>>::type b) {
  a.real -= b.real; a.imag -= b.imag; return a;
}
template <typename T> constexpr complex_t<T>& operator*=(complex_t<T>& a, typename metal::type_identity<complex_t<T>>::type b) {
  return a = a * b;
}
template <typename T> constexpr complex_t<T>& operator/=(complex_t<T>& a, typename metal::type_identity<complex_t<T>>::type b) {
  return a = a / b;
}

// ================================================================ defines.h
#define MTL_CONST constant
static MTL_CONST constexpr int MAX_REDUCE_SPECIALIZED_DIMS = 4;
static MTL_CONST constexpr int REDUCE_N_READS = 4;
static MTL_CONST constexpr int REDUCE_N_WRITES = 4;
static MTL_CONST constexpr int SOFTMAX_N_READS = 4;
static MTL_CONST constexpr int RMS_N_READS = 4;
static MTL_CONST constexpr int RMS_LOOPED_LIMIT = 4096;
// MLX spells this `template [[host_name(name)]] [[kernel]] decltype(func<...>) func<...>;`. This
// header is not rewritten, so the attributes are written as the rewriter would turn them.
#define instantiate_kernel(name, func, ...)                                         \
  template __attribute__((msl_host_name(name))) __attribute__((msl_kernel))        \
  decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;

// ================================================================ logging.h
// mslsim has no os_log output: mlx::os_log accepts MLX's calls and drops them.
namespace mlx {
#ifdef __MSLSIM_HAVE_OS_LOG
using os_log = metal::os_log;
#else
struct os_log {
  constexpr os_log() {}
  constexpr os_log(const char*, const char*) {}
  template <typename... Args> void log(const char*, Args...) const {}
  template <typename... Args> void log_debug(const char*, Args...) const {}
  template <typename... Args> void log_info(const char*, Args...) const {}
  template <typename... Args> void log_error(const char*, Args...) const {}
  template <typename... Args> void log_fault(const char*, Args...) const {}
};
#endif
}  // namespace mlx

// ================================================================ utils.h
typedef half float16_t;

// Elements per thread for MLX's vectorised elementwise kernels (8 bytes of work per thread).
template <typename U> struct WorkPerThread {
  static_assert(sizeof(U) <= 8, "Type too large");
  static constexpr int n = 8 / sizeof(U);
};

// Limits<T>: floats have max/min = +-inf and finite_max/finite_min = +-largest finite value;
// integers have their numeric limits in all four.
template <typename U> struct Limits {
  static constexpr U max = metal::numeric_limits<U>::max();
  static constexpr U min = metal::numeric_limits<U>::min();
  static constexpr U finite_max = metal::numeric_limits<U>::max();
  static constexpr U finite_min = metal::numeric_limits<U>::min();
};
template <typename U> struct __mlx_float_limits {
  static constexpr U max = metal::numeric_limits<U>::infinity();
  static constexpr U min = -metal::numeric_limits<U>::infinity();
  static constexpr U finite_max = metal::numeric_limits<U>::max();
  static constexpr U finite_min = -metal::numeric_limits<U>::max();
};
template <> struct Limits<float> : __mlx_float_limits<float> {};
template <> struct Limits<half> : __mlx_float_limits<half> {};
template <> struct Limits<bfloat16_t> : __mlx_float_limits<bfloat16_t> {};
template <> struct Limits<bool> {
  static constexpr bool max = true;
  static constexpr bool min = false;
  static constexpr bool finite_max = true;
  static constexpr bool finite_min = false;
};
template <typename T> struct Limits<complex_t<T>> {
  static constexpr complex_t<T> max = complex_t<T>(metal::numeric_limits<T>::infinity(), metal::numeric_limits<T>::infinity());
  static constexpr complex_t<T> min = complex_t<T>(-metal::numeric_limits<T>::infinity(), -metal::numeric_limits<T>::infinity());
};

#define MLX_MTL_PRAGMA_UNROLL _Pragma("clang loop unroll(full)")

// ---------------------------------------------------------------- indexing
// elem_to_loc: the memory offset (in elements) of the row-major linear index `elem` of an array
// with the given shape and strides. Strides are int64 elements, as metal_kernel binds them.
template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc(IdxT elem, const constant int* shape, const constant int64_t* strides, int ndim) {
  IdxT loc = 0;
  for (int i = ndim - 1; i >= 0 && elem > 0; --i) {
    loc += (elem % shape[i]) * IdxT(strides[i]);
    elem /= shape[i];
  }
  return loc;
}
// 3-D grid position: x indexes the last dimension, y the one before, z all leading dimensions.
template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc(uint3 elem, const constant int* shape, const constant int64_t* strides, int ndim) {
  IdxT loc = elem.x * IdxT(strides[ndim - 1]) + elem.y * IdxT(strides[ndim - 2]);
  for (int d = ndim - 3; d >= 0; --d) {
    loc += (elem.z % shape[d]) * IdxT(strides[d]);
    elem.z /= shape[d];
  }
  return loc;
}
template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc_1(uint elem, const constant int64_t& stride) { return elem * IdxT(stride); }
template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc_2(uint2 elem, const constant int64_t strides[2]) {
  return elem.x * IdxT(strides[1]) + elem.y * IdxT(strides[0]);
}
template <typename IdxT = int64_t>
METAL_FUNC IdxT elem_to_loc_3(uint3 elem, const constant int64_t strides[3]) {
  return elem.x * IdxT(strides[2]) + elem.y * IdxT(strides[1]) + elem.z * IdxT(strides[0]);
}
// Two or three arrays sharing a shape, different strides.
template <typename IdxT = int64_t>
METAL_FUNC metal::vec<IdxT, 2> elem_to_loc_2_nd(uint3 elem, const constant int* shape, const constant int64_t* a_strides,
                                               const constant int64_t* b_strides, int ndim) {
  IdxT a = elem.x * IdxT(a_strides[ndim - 1]) + IdxT(elem.y) * IdxT(a_strides[ndim - 2]);
  IdxT b = elem.x * IdxT(b_strides[ndim - 1]) + IdxT(elem.y) * IdxT(b_strides[ndim - 2]);
  for (int d = ndim - 3; d >= 0; --d) {
    uint l = elem.z % shape[d];
    a += l * IdxT(a_strides[d]);
    b += l * IdxT(b_strides[d]);
    elem.z /= shape[d];
  }
  return metal::vec<IdxT, 2>(a, b);
}
template <typename IdxT = int64_t>
METAL_FUNC metal::vec<IdxT, 3> elem_to_loc_3_nd(uint3 elem, const constant int* shape, const constant int64_t* a_strides,
                                               const constant int64_t* b_strides, const constant int64_t* c_strides,
                                               int ndim) {
  IdxT a = elem.x * IdxT(a_strides[ndim - 1]) + IdxT(elem.y) * IdxT(a_strides[ndim - 2]);
  IdxT b = elem.x * IdxT(b_strides[ndim - 1]) + IdxT(elem.y) * IdxT(b_strides[ndim - 2]);
  IdxT c = elem.x * IdxT(c_strides[ndim - 1]) + IdxT(elem.y) * IdxT(c_strides[ndim - 2]);
  for (int d = ndim - 3; d >= 0; --d) {
    uint l = elem.z % shape[d];
    a += l * IdxT(a_strides[d]);
    b += l * IdxT(b_strides[d]);
    c += l * IdxT(c_strides[d]);
    elem.z /= shape[d];
  }
  return metal::vec<IdxT, 3>(a, b, c);
}

// LoopedElemToLoc<DIM, OffsetT, General>: walks the offsets of consecutive elements along the last
// `dim` dimensions (an odometer over shape[0..dim)). DIM is the static nesting depth; the level for
// DIM == 1 recomputes the offset with elem_to_loc when General and dim > 1.
template <int DIM, typename OffsetT = size_t, bool General = true> struct LoopedElemToLoc {
  int dim;
  LoopedElemToLoc<DIM - 1, OffsetT, General> inner_looper;
  OffsetT offset{0};
  int index{0};

  LoopedElemToLoc(int dim) : dim(dim), inner_looper(dim - 1) {}

  void next(const constant int* shape, const constant int64_t* strides) {
    if (dim == 0) return;
    ++index;
    offset += OffsetT(strides[dim - 1]);
    if (index >= shape[dim - 1]) {
      index = 0;
      inner_looper.next(shape, strides);
      offset = inner_looper.offset;
    }
  }
  void next(int n, const constant int* shape, const constant int64_t* strides) {
    if (dim == 0) return;
    index += n;
    offset += n * OffsetT(strides[dim - 1]);
    if (index >= shape[dim - 1]) {
      int extra = index - shape[dim - 1];
      if (extra >= shape[dim - 1]) {
        inner_looper.next(1 + extra / shape[dim - 1], shape, strides);
        extra = extra % shape[dim - 1];
      } else {
        inner_looper.next(shape, strides);
      }
      index = 0;
      offset = inner_looper.offset;
      if (extra > 0) next(extra, shape, strides);
    }
  }
  OffsetT location() { return offset; }
};
template <typename OffsetT> struct LoopedElemToLoc<1, OffsetT, true> {
  int dim;
  OffsetT offset{0};
  uint index{0};

  LoopedElemToLoc(int dim) : dim(dim) {}

  void next(const constant int* shape, const constant int64_t* strides) {
    ++index;
    if (dim > 1) offset = elem_to_loc<OffsetT>(index, shape, strides, dim);
    else offset += OffsetT(strides[0]);
  }
  void next(int n, const constant int* shape, const constant int64_t* strides) {
    index += n;
    if (dim > 1) offset = elem_to_loc<OffsetT>(index, shape, strides, dim);
    else offset = index * OffsetT(strides[0]);
  }
  OffsetT location() { return offset; }
};
template <typename OffsetT> struct LoopedElemToLoc<1, OffsetT, false> {
  OffsetT offset{0};

  LoopedElemToLoc(int) {}

  void next(const constant int*, const constant int64_t* strides) { offset += OffsetT(strides[0]); }
  void next(int n, const constant int*, const constant int64_t* strides) { offset += n * OffsetT(strides[0]); }
  OffsetT location() { return offset; }
};

// ---------------------------------------------------------------- calculation utils
template <typename T, typename U> inline T ceildiv(T N, U M) { return (N + M - 1) / M; }

// log1p without catastrophic cancellation (Goldberg's x * log(1+x) / ((1+x) - 1)).
inline float log1p(float x) {
  float xp1 = 1.0f + x;
  if (xp1 == Limits<float>::max) return Limits<float>::max;
  if (xp1 == 1.0f) return x;
  return x * (metal::log(xp1) / (xp1 - 1.0f));
}
inline bfloat16_t log1p(bfloat16_t x) {
  float xp1 = 1.0f + static_cast<float>(x);
  if (xp1 == Limits<float>::max) return Limits<bfloat16_t>::max;
  if (xp1 == 1.0f) return x;
  return bfloat16_t(float(x) * (metal::log(xp1) / (xp1 - 1.0f)));
}
// log(1 + z) = log|1 + z| + i arg(1 + z); near 0, |1+z|^2 - 1 = x(2+x) + y^2 avoids cancellation.
inline complex64_t log1p(complex64_t in) {
  float x = in.real, y = in.imag;
  float zabs = metal::precise::sqrt(x * x + y * y);
  float theta = metal::atan2(y, x + 1);
  if (zabs < 0.5f) {
    float r = x * (2 + x) + y * y;
    if (r == 0) return {x, theta};  // underflow
    return {0.5f * log1p(r), theta};
  }
  return {metal::log(metal::sqrt((x + 1) * (x + 1) + y * y)), theta};
}

// ---------------------------------------------------------------- SIMD shuffles
// MLX adds int64/uint64/bool/complex64 overloads of simd_shuffle, simd_shuffle_up/down and
// simd_shuffle_and_fill_up (splitting 64-bit values into two 32-bit lanes). mslsim's metal::simd_*
// templates move values of any size between lanes, so those calls already work unchanged.

// std::conditional under MLX's name.
template <bool condition, typename T, typename U> struct ConditionalType { using type = U; };
template <typename T, typename U> struct ConditionalType<true, T, U> { using type = T; };

// ---------------------------------------------------------------- casts
// cast_to<U>(x) is static_cast<U>(x), except that floats and bfloats convert to bool by testing
// their bits (so NaN is true and -0 false even under fast math), and a complex is true when either
// part is non-zero.
template <typename U, typename T> inline U cast_to(T val) { return static_cast<U>(val); }
template <> inline bool cast_to<bool, float>(float val) { return (metal::as_type<uint32_t>(val) & 0x7FFFFFFFu) != 0; }
template <> inline bool cast_to<bool, bfloat16_t>(bfloat16_t val) { return (metal::as_type<uint16_t>(val) & 0x7FFFu) != 0; }
template <> inline bool cast_to<bool, complex64_t>(complex64_t val) {
  return cast_to<bool, float>(val.real) || cast_to<bool, float>(val.imag);
}

using namespace metal;
