// <simd/simd.h> in MSL: the simd vector and matrix names shared with the host (simd_float4,
// simd::float4, ...), here aliases of the metal:: types. SPIRV-Cross output includes it.
#pragma once
#include <metal_stdlib>

#define __MSLSIM_SIMD_VEC(T) typedef metal::T##2 simd_##T##2; typedef metal::T##3 simd_##T##3; \
  typedef metal::T##4 simd_##T##4; typedef metal::packed_##T##2 simd_packed_##T##2;              \
  typedef metal::packed_##T##4 simd_packed_##T##4;
__MSLSIM_SIMD_VEC(float) __MSLSIM_SIMD_VEC(half) __MSLSIM_SIMD_VEC(int) __MSLSIM_SIMD_VEC(uint)
__MSLSIM_SIMD_VEC(short) __MSLSIM_SIMD_VEC(ushort) __MSLSIM_SIMD_VEC(char) __MSLSIM_SIMD_VEC(uchar)
__MSLSIM_SIMD_VEC(long) __MSLSIM_SIMD_VEC(ulong)
#undef __MSLSIM_SIMD_VEC
#define __MSLSIM_SIMD_MAT(T) typedef metal::T##2x2 simd_##T##2x2; typedef metal::T##2x3 simd_##T##2x3; \
  typedef metal::T##2x4 simd_##T##2x4; typedef metal::T##3x2 simd_##T##3x2; typedef metal::T##3x3 simd_##T##3x3; \
  typedef metal::T##3x4 simd_##T##3x4; typedef metal::T##4x2 simd_##T##4x2; typedef metal::T##4x3 simd_##T##4x3; \
  typedef metal::T##4x4 simd_##T##4x4;
__MSLSIM_SIMD_MAT(float) __MSLSIM_SIMD_MAT(half)
#undef __MSLSIM_SIMD_MAT

namespace simd {
using namespace metal;
}
