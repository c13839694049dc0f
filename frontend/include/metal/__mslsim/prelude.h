// Injected by mslsim's front end before every translation unit (never included by users).
//
// mslsim compiles MSL as plain C++17 (see shared/design/frontend-facts.md): address-space words are
// erased, because C++-for-OpenCL cannot host templated kernels with threadgroup arrays. What the
// simulator still needs to know is carried by attributes that the front end's plugin understands:
//   msl_kernel                 a kernel entry point
//   msl_threadgroup_memory     a variable (or pointer) in threadgroup memory
//   msl_buffer(n), msl_threadgroup(n), msl_builtin("name"), msl_host_name("name"), ...
// The source rewriter turns MSL's [[attr(args)]] lists into these GNU-spelled attributes before Clang
// sees the text, so these macros never touch an attribute list.
#pragma once

#define kernel __attribute__((msl_kernel))
#define device
// MSL's constant address space is read-only: a `constant` object or pointee is const (so a
// program-scope `constant float t[4]` binds to a `constant float*` parameter, as in Metal).
#define constant const
#define thread
#define threadgroup __attribute__((msl_threadgroup_memory))
#define threadgroup_imageblock
#define ray_data
#define object_data
// `coherent(device)` / `coherent(system)` (MSL 3.2): memory is coherent on the simulator already.
#define coherent(...)
#define offsetof(type, member) __builtin_offsetof(type, member)

#define __METAL__ 1
#define __METAL_VERSION__ 320
// The kernels mslsim runs (MLX, ggml) target macOS; Apple's compiler defines one of these.
#define __METAL_MACOS__ 1
#define __HAVE_MSLSIM__ 1
#define METAL_FUNC inline __attribute__((always_inline))
// `constant T name [[function_constant(n)]]` is rewritten to a constexpr variable plus a flag
// __mslsim_fc_defined_<name>; the values come from __mslsim/function_constants.h, which the front
// end generates for each compilation.
#define is_function_constant_defined(name) __mslsim_fc_defined_##name

// The scalar and vector types (uint, half, float4, ...) and a few enums are built into Apple's
// compiler: a file that includes nothing may use them.
#include <metal_types>
