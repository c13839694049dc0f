// Radix-2 FFT stage in threadgroup memory with a small complex type (operators as free
// functions, M_PI_F twiddles via cospi/sinpi).
#include <metal_stdlib>
using namespace metal;

struct complex64_t {
  float real;
  float imag;
  constexpr complex64_t(float r, float i) thread : real(r), imag(i) {}
  constexpr complex64_t() thread : real(0), imag(0) {}
  constexpr complex64_t() threadgroup : real(0), imag(0) {}
};
METAL_FUNC complex64_t operator+(complex64_t a, complex64_t b) { return {a.real + b.real, a.imag + b.imag}; }
METAL_FUNC complex64_t operator-(complex64_t a, complex64_t b) { return {a.real - b.real, a.imag - b.imag}; }
METAL_FUNC complex64_t operator*(complex64_t a, complex64_t b) {
  return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}

kernel void fft_stage(device complex64_t* data [[buffer(0)]],
                      constant uint& n [[buffer(1)]],
                      uint lid [[thread_index_in_threadgroup]]) {
  threadgroup complex64_t buf[512];
  buf[2 * lid] = data[2 * lid];
  buf[2 * lid + 1] = data[2 * lid + 1];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint m = 1; m < n; m <<= 1) {
    uint k = lid & (m - 1);
    uint i = ((lid - k) << 1) + k;
    float angle = -float(k) / float(m);
    complex64_t tw(cospi(angle), sinpi(angle));
    complex64_t a = buf[i], b = buf[i + m] * tw;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    buf[i] = a + b;
    buf[i + m] = a - b;
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  data[2 * lid] = buf[2 * lid];
  data[2 * lid + 1] = buf[2 * lid + 1];
  (void)M_PI_F;
}
