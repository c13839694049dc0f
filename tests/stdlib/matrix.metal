// floatNxM / halfNxM tests (driven by test_stdlib.py). One thread reads matrices and vectors from
// `in` in a fixed order and appends every result to `out`; the driver replays the same order in
// numpy. Matrices are read and written column by column (m[c][r]).
#include <metal_stdlib>
using namespace metal;

struct Cursor { device const float* in; device float* out; uint i, o; };

template <class T, int C, int R> matrix<T, C, R> get_m(thread Cursor& k) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) m[c][r] = T(k.in[k.i++]);
  return m;
}
template <class T, int N> vec<T, N> get_v(thread Cursor& k) {
  vec<T, N> v;
  for (int j = 0; j < N; ++j) v[j] = T(k.in[k.i++]);
  return v;
}
template <class T, int C, int R> void put(thread Cursor& k, matrix<T, C, R> m) {
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) k.out[k.o++] = float(m[c][r]);
}
template <class T, int N> void put(thread Cursor& k, vec<T, N> v) {
  for (int j = 0; j < N; ++j) k.out[k.o++] = float(v[j]);
}
template <class T> void put(thread Cursor& k, T s) { k.out[k.o++] = float(s); }

// Per shape: a+b, a-b, -a, a*2.5, 0.5*a, transpose(a), a*v, w*a, diagonal(3), a += b, a -= b, a *= 2.
template <class T, int C, int R> void shape_ops(thread Cursor& k) {
  matrix<T, C, R> a = get_m<T, C, R>(k), b = get_m<T, C, R>(k);
  vec<T, C> v = get_v<T, C>(k);
  vec<T, R> w = get_v<T, R>(k);
  put(k, a + b);
  put(k, a - b);
  put(k, -a);
  put(k, a * T(2.5));
  put(k, T(0.5) * a);
  put(k, transpose(a));
  put(k, a * v);
  put(k, w * a);
  put(k, matrix<T, C, R>(T(3)));
  matrix<T, C, R> x = a;
  x += b;
  put(k, x);
  x -= b;
  x -= b;
  put(k, x);
  x *= T(2);
  put(k, x);
}
// (K columns, R rows) * (C columns, K rows).
template <class T, int K, int R, int C> void mat_mul(thread Cursor& k) {
  matrix<T, K, R> a = get_m<T, K, R>(k);
  matrix<T, C, K> b = get_m<T, C, K>(k);
  put(k, a * b);
}

template <class T>
kernel void matrix_ops(device const float* in [[buffer(0)]], device float* out [[buffer(1)]]) {
  Cursor k{in, out, 0, 0};
  shape_ops<T, 2, 2>(k); shape_ops<T, 2, 3>(k); shape_ops<T, 2, 4>(k);
  shape_ops<T, 3, 2>(k); shape_ops<T, 3, 3>(k); shape_ops<T, 3, 4>(k);
  shape_ops<T, 4, 2>(k); shape_ops<T, 4, 3>(k); shape_ops<T, 4, 4>(k);
  mat_mul<T, 2, 3, 4>(k); mat_mul<T, 3, 3, 3>(k); mat_mul<T, 4, 4, 4>(k); mat_mul<T, 4, 2, 3>(k);
  mat_mul<T, 2, 2, 2>(k); mat_mul<T, 3, 4, 2>(k);
  put(k, determinant(get_m<T, 2, 2>(k)));
  put(k, determinant(get_m<T, 3, 3>(k)));
  put(k, determinant(get_m<T, 4, 4>(k)));
  put(k, determinant(get_m<T, 4, 4>(k)));
  // Constructors: from columns, from scalars (column by column), element and column access.
  vec<T, 3> c0 = get_v<T, 3>(k), c1 = get_v<T, 3>(k);
  matrix<T, 2, 3> fc(c0, c1);
  put(k, fc);
  matrix<T, 2, 2> fs(T(1), T(2), T(3), T(4));
  put(k, fs);
  put(k, fs[1]);
  put(k, fs[1][0]);
  fs[0][1] = T(9);
  fs[1] = vec<T, 2>(T(7), T(8));
  put(k, fs);
}
#if !defined(ONLY) || defined(K_matrix_ops_f32)
template [[host_name("matrix_ops_f32")]] kernel decltype(matrix_ops<float>) matrix_ops<float>;
#endif
#if !defined(ONLY) || defined(K_matrix_ops_f16)
template [[host_name("matrix_ops_f16")]] kernel decltype(matrix_ops<half>) matrix_ops<half>;
#endif

#if !defined(ONLY) || defined(K_matrix_layout)
// Memory layout: matrices read straight from a buffer (columns back to back, 3-row columns padded
// to 4), ggml's whole-matrix conversion (float4x4)(half4x4) and sizes.
kernel void matrix_layout(device const float4x4* m44 [[buffer(0)]], device const float3x3* m33 [[buffer(1)]],
                          device const half4x4* h44 [[buffer(2)]], device const half2x3* h23 [[buffer(3)]],
                          device float* out [[buffer(4)]], device half4x4* hout [[buffer(5)]]) {
  uint o = 0;
  for (int c = 0; c < 4; ++c) for (int r = 0; r < 4; ++r) out[o++] = m44[1][c][r];
  for (int c = 0; c < 3; ++c) for (int r = 0; r < 3; ++r) out[o++] = m33[1][c][r];
  float4x4 f = (float4x4)(h44[1]);
  for (int c = 0; c < 4; ++c) for (int r = 0; r < 4; ++r) out[o++] = f[c][r];
  for (int c = 0; c < 2; ++c) for (int r = 0; r < 3; ++r) out[o++] = float(h23[1][c][r]);
  out[o++] = sizeof(float4x4); out[o++] = alignof(float4x4);
  out[o++] = sizeof(float3x3); out[o++] = alignof(float3x3);
  out[o++] = sizeof(half4x4); out[o++] = alignof(half4x4);
  out[o++] = sizeof(half2x2); out[o++] = alignof(half2x2);
  out[o++] = sizeof(float2x3); out[o++] = sizeof(half3x2);
  hout[0] = half4x4(m44[0]);
  hout[1] = half4x4(2.0h);
}
#endif
