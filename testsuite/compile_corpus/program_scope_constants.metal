// Program-scope constant tables (ggml's constexpr constant static arrays), constant structs.
#include <metal_stdlib>
using namespace metal;

constexpr constant static float kvalues_nl4[16] = {-127.f, -104.f, -83.f, -65.f, -49.f, -35.f, -22.f, -10.f,
                                                   1.f,    13.f,   25.f,  38.f,  53.f,  69.f,  89.f,  113.f};
constant half kHalfTable[4] = {0.0h, 0.25h, 0.5h, 1.0h};
constant uint kPrimes[] = {2, 3, 5, 7, 11, 13};
struct Lut {
  float bias;
  int shift;
};
constant Lut kLut = {0.5f, 3};
constant float kScale = 1.0f / 127.0f;

kernel void lookup_nl4(device const uchar* q [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  uchar b = q[i];
  float lo = kvalues_nl4[b & 0xF], hi = kvalues_nl4[b >> 4];
  out[2 * i] = lo * kScale + float(kHalfTable[i % 4]);
  out[2 * i + 1] = hi * kScale + kLut.bias + float(kPrimes[i % 6] >> kLut.shift);
}
