#include <metal_stdlib>
using namespace metal;

// Forms real bfloat code uses that a class-typed bfloat gets wrong or refuses:
//  * a conditional with a bfloat and an integer arm (ggml's bf16 matrix multiplication loads edge
//    tiles as `in_range ? x[i] : 0`), in a kernel and in a template instantiated for bfloat and float;
//  * an integer operand converted to bfloat before the operation (257 is 256 as a bfloat);
//  * program-scope constexpr vectors from a brace list and a constructor; vec_elements.
constexpr constant int3 kShift = {1, 2, 3};
constexpr constant uint4 kMask = uint4(0xFu, 0xF0u, 0xF00u, 0xF000u);

template <class T> T zero_outside(bool inside, T v) { return inside ? v : 0; }
template <typename V> uint components() { return vec_elements<V>::value; }

kernel void forms(device const bfloat* x [[buffer(0)]], device bfloat* y [[buffer(1)]],
                  device float* z [[buffer(2)]], device uint* w [[buffer(3)]],
                  constant uint& n [[buffer(4)]], uint i [[thread_position_in_grid]]) {
  uint j = min(i, n - 1);
  bfloat v = i < n ? x[j] : 0;
  bfloat u = i >= n ? 1 : x[j];
  y[i] = v + u * 257 + zero_outside(i < n, x[j]);
  z[i] = zero_outside(i < n, float(x[j]) * 0.5f) + float(kShift[i % 3]);
  w[i] = components<float4>() + components<half2>() * 10 + components<float>() * 100 +
         (kMask[i % 4] >> (4 * (i % 4)));
}
