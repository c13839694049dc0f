// Address-space qualified member functions (`) const thread {`, `) const device {`,
// `) const threadgroup {`) as MLX's complex type and loaders declare them.
#include <metal_stdlib>
using namespace metal;

struct complex2 {
  float re, im;
  complex2() thread = default;
  constexpr complex2(float r, float i) thread : re(r), im(i) {}
  complex2(const thread complex2& o) thread = default;
  float norm2() const thread { return re * re + im * im; }
  void operator=(const thread complex2& o) device { re = o.re; im = o.im; }
  void operator=(const thread complex2& o) threadgroup { re = o.re; im = o.im; }
  float real() const device { return re; }
  float real() const threadgroup { return re; }
  float real() const constant { return re; }
  float real() const thread { return re; }
};

METAL_FUNC complex2 operator*(thread const complex2& a, thread const complex2& b) {
  return complex2(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

kernel void complex_square(device const complex2* in [[buffer(0)]],
                           device complex2* out [[buffer(1)]],
                           uint gid [[thread_position_in_grid]],
                           uint lid [[thread_position_in_threadgroup]]) {
  threadgroup complex2 tile[64];
  complex2 v = in[gid];
  tile[lid % 64] = v * v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  complex2 t(tile[lid % 64].real(), 0.0f);
  out[gid] = t;
  out[gid].re += in[gid].real() + v.norm2();
}
