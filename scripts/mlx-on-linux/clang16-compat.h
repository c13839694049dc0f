// Force-included into MLX's build by scripts/mlx-on-linux.sh. Clang 16 (Debian 12's) does not know
// "f16c" as a __builtin_cpu_supports feature (clang 17 does), which MLX's CPU backend asks for
// (mlx/backend/cpu/jit_compiler.cpp): the call goes through a function that asks CPUID for f16c
// and clang for the rest.
#pragma once
#if defined(__clang__) && __clang_major__ < 17 && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#include <string.h>
static inline int mslsim_cpu_supports(const char* feature) {
  if (strcmp(feature, "f16c") == 0) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
  }
  if (strcmp(feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
  if (strcmp(feature, "fma") == 0) return __builtin_cpu_supports("fma");
  if (strcmp(feature, "avx") == 0) return __builtin_cpu_supports("avx");
  if (strcmp(feature, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (strcmp(feature, "sse4.2") == 0) return __builtin_cpu_supports("sse4.2");
  return 0;
}
#define __builtin_cpu_supports(feature) mslsim_cpu_supports(feature)
#endif
