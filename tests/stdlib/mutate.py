#!/usr/bin/python3
"""Shows that the checks of test_stdlib.py can fail: runs it against modified copies of the library
headers (MSLSIM_STDLIB_DIR, which mslsim then serves as its standard library instead of the
embedded copy) and reports, per mutation, which checks failed, and which checks no mutation made
fail.

Usage: /usr/bin/python3 tests/stdlib/mutate.py PATH_TO_MSLSIM   (takes a few minutes)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "..", "..", "frontend", "include", "metal")

# (name, file under metal/, old text, new text)
MUTATIONS = [
    ("lane layout row", "__mslsim/simdgroup_matrix.h",
     "return ((l >> 2) & 4u) + ((l >> 1) & 3u);", "return ((l >> 2) & 4u) + ((l >> 1) & 3u) ^ 1u;"),
    ("transposed load swaps nothing", "__mslsim/simdgroup_matrix.h",
     "d.__e[0] = src[col * elements_per_row + row];\n    d.__e[1] = src[(col + 1) * elements_per_row + row];",
     "d.__e[0] = src[row * elements_per_row + col];\n    d.__e[1] = src[row * elements_per_row + col + 1];"),
    ("load ignores origin.x", "__mslsim/simdgroup_matrix.h",
     "src += matrix_origin.y * elements_per_row + matrix_origin.x;", "src += matrix_origin.y * elements_per_row;"),
    ("load origin (x, y) swapped", "__mslsim/simdgroup_matrix.h",
     "src += matrix_origin.y * elements_per_row + matrix_origin.x;",
     "src += matrix_origin.x * elements_per_row + matrix_origin.y;"),
    ("store ignores transpose", "__mslsim/simdgroup_matrix.h",
     "    dst[col * elements_per_row + row] = a.__e[0];\n    dst[(col + 1) * elements_per_row + row] = a.__e[1];",
     "    dst[row * elements_per_row + col] = a.__e[0];\n    dst[row * elements_per_row + col + 1] = a.__e[1];"),
    ("store ignores stride", "__mslsim/simdgroup_matrix.h",
     "    T* p = dst + row * elements_per_row + col;", "    T* p = dst + row * 8 + col;"),
    # The products' arithmetic is the simulator's (sim/SimdgroupMatrix.cpp); the library gives it
    # the operands.
    ("accumulator dropped", "__mslsim/simdgroup_matrix.h",
     "const float c0 = Acc ? float(c[0]) : 0.0f", "const float c0 = 0.0f"),
    ("accumulator always added", "__mslsim/simdgroup_matrix.h",
     "const float c0 = Acc ? float(c[0]) : 0.0f, c1 = Acc ? float(c[1]) : 0.0f;",
     "const float c0 = float(c[0]), c1 = float(c[1]);"),
    ("B operands swapped", "__mslsim/simdgroup_matrix.h",
     "float(b.__e[0]), float(b.__e[1]), c0, c1}", "float(b.__e[1]), float(b.__e[0]), c0, c1}"),
    ("C rounded to half", "__mslsim/simdgroup_matrix.h",
     "const float c0 = Acc ? float(c[0]) : 0.0f", "const float c0 = Acc ? float(half(c[0])) : 0.0f"),
    ("A rounded to half", "__mslsim/simdgroup_matrix.h",
     "__sgmm_in{float(a.__e[0]),", "__sgmm_in{float(half(a.__e[0])),"),
    ("diagonal off by one", "__mslsim/simdgroup_matrix.h",
     "__e[1] = row == col + 1 ? T(d) : T(0);", "__e[1] = row == col ? T(d) : T(0);"),
    ("filled matrix zero", "__mslsim/simdgroup_matrix.h", "m.__e = vec<T, 2>(T(value));", "m.__e = vec<T, 2>(T(0));"),
    ("matrix*vector uses rows", "__mslsim/matrix.h",
     "for (int c = 0; c < C; ++c) s += float(a.columns[c][r]) * float(v[c]);",
     "for (int c = 0; c < C; ++c) s += float(a.columns[c][r]) * float(v[C - 1 - c]);"),
    ("vector*matrix", "__mslsim/matrix.h",
     "for (int r = 0; r < R; ++r) s += float(v[r]) * float(a.columns[c][r]);",
     "for (int r = 1; r < R; ++r) s += float(v[r]) * float(a.columns[c][r]);"),
    ("matrix*matrix order", "__mslsim/matrix.h",
     "s += float(a.columns[k][r]) * float(b.columns[c][k]);", "s += float(a.columns[k][r]) * float(b.columns[k % C][c % K]);"),
    ("matrix - is +", "__mslsim/matrix.h",
     "for (int c = 0; c < C; ++c) m.columns[c] = a.columns[c] - b.columns[c];",
     "for (int c = 0; c < C; ++c) m.columns[c] = a.columns[c] + b.columns[c];"),
    ("matrix scalar product on the left", "__mslsim/matrix.h",
     "for (int c = 0; c < C; ++c) m.columns[c] = T(s) * a.columns[c];",
     "for (int c = 0; c < C; ++c) m.columns[c] = T(s) + a.columns[c];"),
    ("transpose is identity", "__mslsim/matrix.h",
     "for (int r = 0; r < R; ++r) m.columns[r][c] = a.columns[c][r];",
     "for (int r = 0; r < R; ++r) m.columns[r][c] = a.columns[r % C][c % R];"),
    ("determinant 3x3 sign", "__mslsim/matrix.h",
     "m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +", "m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) -"),
    ("determinant 4x4 term", "__mslsim/matrix.h",
     "float c3 = m[0][1] * s3 - m[1][1] * s1 + m[2][1] * s0;", "float c3 = m[0][1] * s3 - m[1][1] * s1 - m[2][1] * s0;"),
    ("determinant 2x2", "__mslsim/matrix.h",
     "return T(m[0][0] * m[1][1] - m[1][0] * m[0][1]);", "return T(m[0][0] * m[1][1] + m[1][0] * m[0][1]);"),
    ("scalar constructor row-major", "__mslsim/matrix.h",
     "for (int r = 0; r < Rows; ++r) columns[c][r] = v[c * Rows + r];",
     "for (int r = 0; r < Rows; ++r) columns[c][r] = v[r * Cols + c];"),
    ("diagonal constructor", "__mslsim/matrix.h",
     "for (int r = 0; r < Rows; ++r) columns[c][r] = c == r ? T(d) : T(0);",
     "for (int r = 0; r < Rows; ++r) columns[c][r] = T(d);"),
    ("matrix columns packed", "__mslsim/matrix.h", "typedef vec<T, Rows> column_type;",
     "typedef packed_vec<T, Rows> column_type;"),
    ("compound -= adds", "__mslsim/matrix.h",
     "matrix& operator-=(const matrix& o) { return *this = *this - o; }",
     "matrix& operator-=(const matrix& o) { return *this = *this + o; }"),
    ("matrix conversion truncates", "__mslsim/matrix.h",
     "for (int c = 0; c < Cols; ++c) columns[c] = column_type(m.columns[c]);",
     "for (int c = 0; c < Cols; ++c) columns[c] = column_type(vec<int, Rows>(m.columns[c]));"),
    ("unorm -> float divides by 2^n", "__mslsim/pack.h",
     "return float(c) / float((1u << bits) - 1u);", "return float(c) / float(1u << bits);"),
    ("snorm without clamp at -1", "__mslsim/pack.h",
     "return __builtin_fmaxf(-1.0f, float(s) / float((1 << (bits - 1)) - 1));",
     "return float(s) / float((1 << (bits - 1)) - 1);"),
    ("float -> unorm truncates", "__mslsim/pack.h",
     "return uint(__builtin_rintf(f * float((1u << bits) - 1u)));", "return uint(f * float((1u << bits) - 1u));"),
    ("float -> snorm no clamp", "__mslsim/pack.h",
     "f = f != f ? 0.0f : __builtin_fminf(__builtin_fmaxf(f, -1.0f), 1.0f);", "f = f != f ? 0.0f : f;"),
    ("srgb decode linear", "__mslsim/pack.h",
     "return c <= 0.04045f ? c / 12.92f : __builtin_powf((c + 0.055f) / 1.055f, 2.4f);",
     "return c <= 0.04045f ? c / 12.92f : __builtin_powf((c + 0.055f) / 1.055f, 2.2f);"),
    ("srgb encode", "__mslsim/pack.h",
     "return c <= 0.0031308f ? c * 12.92f : 1.055f * __builtin_powf(c, 1.0f / 2.4f) - 0.055f;",
     "return c <= 0.0031308f ? c * 12.92f : 1.055f * __builtin_powf(c, 1.0f / 2.2f) - 0.055f;"),
    ("565 field order", "__mslsim/pack.h",
     "return ushort(__f_to_unorm(v.x, 5) | __f_to_unorm(v.y, 6) << 5 | __f_to_unorm(v.z, 5) << 11);",
     "return ushort(__f_to_unorm(v.z, 5) | __f_to_unorm(v.y, 6) << 5 | __f_to_unorm(v.x, 5) << 11);"),
    ("unpack 565 field order", "__mslsim/pack.h",
     "__unorm_to_f(x & 31u, 5), __unorm_to_f((x >> 5) & 63u, 6), __unorm_to_f(x >> 11, 5)",
     "__unorm_to_f(x >> 11, 5), __unorm_to_f((x >> 5) & 63u, 6), __unorm_to_f(x & 31u, 5)"),
    ("10a2 alpha bits", "__mslsim/pack.h",
     "__f_to_unorm(v.z, 10) << 20 | __f_to_unorm(v.w, 2) << 30;", "__f_to_unorm(v.z, 10) << 20 | __f_to_unorm(v.w, 1) << 30;"),
    ("half unpack goes through int", "__mslsim/pack.h",
     "return __MSLSIM_HV(N)(name##_to_float(x)); }", "return __MSLSIM_HV(N)(-name##_to_float(x)); }"),
    ("half pack negates", "__mslsim/pack.h",
     "return pack_float_to_##name(__MSLSIM_FV(N)(__MSLSIM_HV(N)(x))); }",
     "return pack_float_to_##name(-__MSLSIM_FV(N)(__MSLSIM_HV(N)(x))); }"),
    ("float digits10", "__mslsim/base.h", "0x7fa00000u, 6, 9, -125, -37, 128, 38> {};",
     "0x7fa00000u, 7, 9, -125, -37, 128, 38> {};"),
    ("half min_exponent", "__mslsim/base.h", "0x7d00, 3, 5, -13, -4, 16, 4> {};", "0x7d00, 3, 5, -14, -4, 16, 4> {};"),
    ("bfloat signaling NaN is a number", "__mslsim/base.h", "0x7fa0, 2, 4, -125, -37, 128, 38> {};",
     "0x3fa0, 2, 4, -125, -37, 128, 38> {};"),
    ("int digits10", "__mslsim/base.h", "static constexpr int digits10 = Digits * 643 / 2136;",
     "static constexpr int digits10 = Digits * 643 / 2000;"),
    ("unsigned not modulo", "__mslsim/base.h", "static constexpr bool is_modulo = Lo == 0 && !__is_same(T, bool);",
     "static constexpr bool is_modulo = false;"),
    ("cv limits", "__mslsim/base.h",
     "template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};",
     "template <class T> struct numeric_limits<const volatile T> : numeric_limits<short> {};"),
    ("decay keeps cv", "__mslsim/base.h", "conditional_t<__is_function(U), U*, remove_cv_t<U>>> type;",
     "conditional_t<__is_function(U), U*, U>> type;"),
    ("disjunction", "__mslsim/base.h",
     "struct disjunction<B, Bs...> : conditional_t<bool(B::value), B, disjunction<Bs...>> {};",
     "struct disjunction<B, Bs...> : conditional_t<bool(B::value), disjunction<Bs...>, B> {};"),
    ("extent", "__mslsim/base.h",
     "template <class T, size_t N, unsigned I> struct extent<T[N], I> : extent<T, I - 1> {};",
     "template <class T, size_t N, unsigned I> struct extent<T[N], I> : extent<T, I> {};"),
    ("os_log macro", "__mslsim/logging.h", "#define __MSLSIM_HAVE_OS_LOG 1", "#define __MSLSIM_HAVE_OS_LOG 0"),
    ("simd.h matrix alias", "simd/simd.h", "typedef metal::T##4x4 simd_##T##4x4;", "typedef metal::T##4x2 simd_##T##4x4;"),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    mslsim = os.path.abspath(sys.argv[1])
    base = subprocess.run([sys.executable, os.path.join(HERE, "test_stdlib.py"), mslsim], capture_output=True,
                          text=True, env=dict(os.environ, MSLSIM_STDLIB_VERBOSE="1"))
    names = set(re.findall(r"^PASS (.*)$", base.stdout, re.M))
    print("unmodified:", base.stdout.strip().splitlines()[-1])
    ever_failed = set()
    useless = []
    for name, rel, old, new in MUTATIONS:
        tmp = tempfile.mkdtemp(prefix="mslsim-mut-")
        lib = os.path.join(tmp, "metal")
        shutil.copytree(LIB, lib)
        path = os.path.join(lib, rel)
        text = open(path).read()
        if text.count(old) != 1:
            print(f"MUTATION {name}: pattern found {text.count(old)} times, skipped")
            useless.append(name)
            continue
        open(path, "w").write(text.replace(old, new))
        env = dict(os.environ, MSLSIM_STDLIB_DIR=lib, MSLSIM_CACHE_DIR="off")  # no cache entries per copy
        r = subprocess.run([sys.executable, os.path.join(HERE, "test_stdlib.py"), mslsim], capture_output=True,
                           text=True, env=env)
        failed = [m.group(1) for m in re.finditer(r"^FAIL (.*?)(?: \d+ mismatches| worst at| shape| exit|$)",
                                                  r.stdout, re.M)]
        ever_failed.update(failed)
        print(f"MUTATION {name}: exit {r.returncode}, {len(failed)} failing check(s): {'; '.join(failed)[:400]}")
        if r.returncode == 0:
            useless.append(name)
        shutil.rmtree(tmp)
    print(f"\n{len(MUTATIONS) - len(useless)}/{len(MUTATIONS)} mutations detected")
    for u in useless:
        print("NOT DETECTED:", u)
    never = sorted(n for n in names if n.strip() not in {f.strip() for f in ever_failed})
    print(f"\n{len(names) - len(never)}/{len(names)} checks failed under at least one mutation")
    for n in never:
        print("NEVER FAILED:", n)
    return 1 if useless or never else 0


if __name__ == "__main__":
    sys.exit(main())
