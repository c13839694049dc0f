// Templates meeting the standard library: a template deducing its type from a swizzle
// (SPIR-V Cross: spvSubgroupShuffle(value.xy, lane) returning T), and a user's `sign(T)` for
// integers next to metal::sign (SPIR-V Cross's GLSL.std.450 helpers).
#include <metal_stdlib>
using namespace metal;

template <typename T> inline T shuffled(T value, ushort lane) { return simd_shuffle(value, lane); }

template <typename T, typename E = typename enable_if<is_integral<T>::value>::type>
inline T sign(T x) { return select(select(select(x, T(0), x == T(0)), T(1), x > T(0)), T(-1), x < T(0)); }

kernel void deduction(device ulong2* out [[buffer(0)]], device int* isign [[buffer(1)]],
                      device float* fsign [[buffer(2)]], uint i [[thread_position_in_grid]],
                      ushort lane [[thread_index_in_simdgroup]]) {
  ulong3 v = ulong3(i, i + 1, i + 2);
  out[i] = shuffled(v.xy, lane ^ 1);
  isign[i] = sign(int(i) - 3);
  fsign[i] = sign(float(i) - 3.0f);
}
