#include <metal_stdlib>
using namespace metal;

// Forms real bfloat code uses that a class-typed bfloat gets wrong or refuses:
//  * a conditional with a bfloat and an integer arm (ggml's bf16 matrix multiplication loads edge
//    tiles as `in_range ? x[i] : 0`), in a kernel and in a template instantiated for bfloat and float;
//  * an integer operand converted to bfloat before the operation (257 is 256 as a bfloat).
template <class T> T zero_outside(bool inside, T v) { return inside ? v : 0; }

kernel void forms(device const bfloat* x [[buffer(0)]], device bfloat* y [[buffer(1)]],
                  device float* z [[buffer(2)]], constant uint& n [[buffer(3)]],
                  uint i [[thread_position_in_grid]]) {
  uint j = min(i, n - 1);
  bfloat v = i < n ? x[j] : 0;
  bfloat u = i >= n ? 1 : x[j];
  y[i] = v + u * 257 + zero_outside(i < n, x[j]);
  z[i] = zero_outside(i < n, float(x[j]) * 0.5f) + float(i % 3);
}
