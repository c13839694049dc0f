// metal::array for strides and index pairs: returned from helpers, stored in structs with device
// pointers, iterated with range-for, next to plain C arrays.
#include <metal_array>
#include <metal_stdlib>
using namespace metal;

template <int NDIM>
struct Strided {
  metal::array<const device float*, 2> srcs;
  metal::array<int, NDIM> shape;
  metal::array<long, NDIM> strides;
};

template <int NDIM>
METAL_FUNC metal::array<long, 2> locate(uint elem, constant int* shape, constant long* sa, constant long* sb) {
  metal::array<long, 2> loc = {0, 0};
  for (int d = NDIM - 1; d >= 0; --d) {
    uint k = elem % uint(shape[d]);
    loc[0] += k * sa[d];
    loc[1] += k * sb[d];
    elem /= uint(shape[d]);
  }
  return loc;
}

kernel void strided_add(device const float* a [[buffer(0)]],
                        device const float* b [[buffer(1)]],
                        device float* out [[buffer(2)]],
                        constant int* shape [[buffer(3)]],
                        constant long* sa [[buffer(4)]],
                        constant long* sb [[buffer(5)]],
                        uint gid [[thread_position_in_grid]]) {
  metal::array<long, 2> loc = locate<3>(gid, shape, sa, sb);
  Strided<3> s;
  s.srcs[0] = a;
  s.srcs[1] = b;
  float total = 0.0f;
  for (const device float* p : s.srcs) total += p[0] * 0.0f;
  int c_array[4] = {1, 2, 3, 4};
  total += float(c_array[gid % 4]) * 0.0f + float(s.srcs.size() + loc.size());
  out[gid] = a[loc[0]] + b[loc.back()] + total * 0.0f + float(loc.front() - loc[0]);
}
