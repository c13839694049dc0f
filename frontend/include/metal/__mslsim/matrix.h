// <metal_matrix>: matrix<T, Cols, Rows> (Cols, Rows in 2..4), floatCxR / halfCxR, operators,
// transpose and determinant.
//
// Column-major as in MSL: m[i] is column i, a vec<T, Rows>; m[i][j] is column i, row j. The
// columns are stored back to back, so sizes are Cols * sizeof(vec<T, Rows>) (float3x3 = 48 bytes,
// half4x4 = 32) with the column vector's alignment. Products and determinants accumulate in float
// and round once per result element (the spec leaves the order of partial sums undefined).
// Element-type conversion between matrices is explicit, as in MSL (float4x4(h) for a half4x4 h).
#pragma once
#include "math.h"

namespace metal {
template <class T, int Cols, int Rows> struct matrix {
  static_assert(Cols >= 2 && Cols <= 4 && Rows >= 2 && Rows <= 4, "MSL matrices are 2..4 x 2..4");
  typedef vec<T, Rows> column_type;
  column_type columns[Cols];

  matrix() = default;
  // Diagonal matrix: `d` on the diagonal, zero elsewhere.
  template <class S, enable_if_t<__is_scalar_v<S>, int> = 0> explicit matrix(S d) {
    for (int c = 0; c < Cols; ++c)
      for (int r = 0; r < Rows; ++r) columns[c][r] = c == r ? T(d) : T(0);
  }
  // From Cols column vectors. Constant expressions too (program-scope constexpr tables), as are
  // the scalars' form below.
  template <class... V, enable_if_t<sizeof...(V) == Cols && (... && (__vt<V>::n == Rows)), int> = 0>
  constexpr matrix(const V&... cols) : columns{column_type(cols)...} {}
  // From Cols*Rows scalars, column by column.
  template <class... S, enable_if_t<sizeof...(S) == Cols * Rows && Cols * Rows != Cols && (... && __is_scalar_v<S>), int> = 0>
  constexpr matrix(const S&... s) : matrix(__scalars{{T(s)...}}, make_index_sequence<Cols>()) {}
  // From a matrix of another element type and the same shape.
  template <class U, enable_if_t<!__is_same(U, T), int> = 0> explicit matrix(const matrix<U, Cols, Rows>& m) {
    for (int c = 0; c < Cols; ++c) columns[c] = column_type(m.columns[c]);
  }

  column_type& operator[](int i) { return columns[i]; }
  constexpr const column_type& operator[](int i) const { return columns[i]; }

  struct __scalars {
    T v[Cols * Rows];
  };
  template <size_t... C>
  constexpr matrix(const __scalars& s, index_sequence<C...>) : columns{__column(s, C)...} {}
  static constexpr column_type __column(const __scalars& s, int c) {
    if constexpr (Rows == 2) return column_type(s.v[c * 2], s.v[c * 2 + 1]);
    else if constexpr (Rows == 3) return column_type(s.v[c * 3], s.v[c * 3 + 1], s.v[c * 3 + 2]);
    else return column_type(s.v[c * 4], s.v[c * 4 + 1], s.v[c * 4 + 2], s.v[c * 4 + 3]);
  }

  matrix& operator+=(const matrix& o) { return *this = *this + o; }
  matrix& operator-=(const matrix& o) { return *this = *this - o; }
  template <class S, enable_if_t<__is_scalar_v<S>, int> = 0> matrix& operator*=(S s) { return *this = *this * s; }
  matrix& operator*=(const matrix<T, Cols, Cols>& o) { return *this = *this * o; }
};

#define __MSLSIM_MAT_TYPEDEFS(T)                                                             \
  typedef matrix<T, 2, 2> T##2x2; typedef matrix<T, 2, 3> T##2x3; typedef matrix<T, 2, 4> T##2x4; \
  typedef matrix<T, 3, 2> T##3x2; typedef matrix<T, 3, 3> T##3x3; typedef matrix<T, 3, 4> T##3x4; \
  typedef matrix<T, 4, 2> T##4x2; typedef matrix<T, 4, 3> T##4x3; typedef matrix<T, 4, 4> T##4x4;
__MSLSIM_MAT_TYPEDEFS(float)
__MSLSIM_MAT_TYPEDEFS(half)
#undef __MSLSIM_MAT_TYPEDEFS

template <class T, int C, int R> METAL_FUNC matrix<T, C, R> operator+(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m.columns[c] = a.columns[c] + b.columns[c];
  return m;
}
template <class T, int C, int R> METAL_FUNC matrix<T, C, R> operator-(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m.columns[c] = a.columns[c] - b.columns[c];
  return m;
}
template <class T, int C, int R> METAL_FUNC matrix<T, C, R> operator-(const matrix<T, C, R>& a) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m.columns[c] = -a.columns[c];
  return m;
}
template <class T, int C, int R> METAL_FUNC matrix<T, C, R> operator+(const matrix<T, C, R>& a) { return a; }
template <class T, int C, int R, class S, enable_if_t<__is_scalar_v<S>, int> = 0>
METAL_FUNC matrix<T, C, R> operator*(const matrix<T, C, R>& a, S s) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m.columns[c] = a.columns[c] * T(s);
  return m;
}
template <class T, int C, int R, class S, enable_if_t<__is_scalar_v<S>, int> = 0>
METAL_FUNC matrix<T, C, R> operator*(S s, const matrix<T, C, R>& a) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c) m.columns[c] = T(s) * a.columns[c];
  return m;
}
// Matrix (C columns, R rows) times column vector (C elements) -> R elements.
template <class T, int C, int R, class V, enable_if_t<__is_same(__vec_of<V>, vec<T, C>), int> = 0>
METAL_FUNC vec<T, R> operator*(const matrix<T, C, R>& a, const V& v_) {
  vec<T, C> v(v_);
  vec<T, R> out;
  for (int r = 0; r < R; ++r) {
    float s = 0.0f;
    for (int c = 0; c < C; ++c) s += float(a.columns[c][r]) * float(v[c]);
    out[r] = T(s);
  }
  return out;
}
// Row vector (R elements) times matrix (C columns, R rows) -> C elements.
template <class T, int C, int R, class V, enable_if_t<__is_same(__vec_of<V>, vec<T, R>), int> = 0>
METAL_FUNC vec<T, C> operator*(const V& v_, const matrix<T, C, R>& a) {
  vec<T, R> v(v_);
  vec<T, C> out;
  for (int c = 0; c < C; ++c) {
    float s = 0.0f;
    for (int r = 0; r < R; ++r) s += float(v[r]) * float(a.columns[c][r]);
    out[c] = T(s);
  }
  return out;
}
// (K columns, R rows) times (C columns, K rows) -> (C columns, R rows).
template <class T, int K, int R, int C>
METAL_FUNC matrix<T, C, R> operator*(const matrix<T, K, R>& a, const matrix<T, C, K>& b) {
  matrix<T, C, R> m;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += float(a.columns[k][r]) * float(b.columns[c][k]);
      m.columns[c][r] = T(s);
    }
  return m;
}
template <class T, int C, int R> METAL_FUNC bool operator==(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  for (int c = 0; c < C; ++c)
    if (!all(a.columns[c] == b.columns[c])) return false;
  return true;
}
template <class T, int C, int R> METAL_FUNC bool operator!=(const matrix<T, C, R>& a, const matrix<T, C, R>& b) {
  return !(a == b);
}

template <class T, int C, int R> METAL_FUNC matrix<T, R, C> transpose(const matrix<T, C, R>& a) {
  matrix<T, R, C> m;
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) m.columns[r][c] = a.columns[c][r];
  return m;
}
template <class T, int N> METAL_FUNC T determinant(const matrix<T, N, N>& a) {
  float m[N][N];  // m[col][row]
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < N; ++r) m[c][r] = float(a.columns[c][r]);
  if constexpr (N == 2) {
    return T(m[0][0] * m[1][1] - m[1][0] * m[0][1]);
  } else if constexpr (N == 3) {
    return T(m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) -
             m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
             m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]));
  } else {
    // Laplace expansion along the first row via 2x2 minors of the lower rows.
    float s0 = m[0][2] * m[1][3] - m[1][2] * m[0][3], s1 = m[0][2] * m[2][3] - m[2][2] * m[0][3];
    float s2 = m[0][2] * m[3][3] - m[3][2] * m[0][3], s3 = m[1][2] * m[2][3] - m[2][2] * m[1][3];
    float s4 = m[1][2] * m[3][3] - m[3][2] * m[1][3], s5 = m[2][2] * m[3][3] - m[3][2] * m[2][3];
    float c0 = m[1][1] * s5 - m[2][1] * s4 + m[3][1] * s3;
    float c1 = m[0][1] * s5 - m[2][1] * s2 + m[3][1] * s1;
    float c2 = m[0][1] * s4 - m[1][1] * s2 + m[3][1] * s0;
    float c3 = m[0][1] * s3 - m[1][1] * s1 + m[2][1] * s0;
    return T(m[0][0] * c0 - m[1][0] * c1 + m[2][0] * c2 - m[3][0] * c3);
  }
}
}  // namespace metal

#define __MSLSIM_GLOBAL_MAT(T) using metal::T##2x2; using metal::T##2x3; using metal::T##2x4; \
  using metal::T##3x2; using metal::T##3x3; using metal::T##3x4; using metal::T##4x2; using metal::T##4x3; \
  using metal::T##4x4;
__MSLSIM_GLOBAL_MAT(float) __MSLSIM_GLOBAL_MAT(half)
#undef __MSLSIM_GLOBAL_MAT
