// Whole-function vectorisation of a kernel over the 32 lanes of a SIMD-group: the vector-lane
// execution path (docs/architecture.md, "Executor"; the scheduler's side is VectorLanes.cpp).
#pragma once

#include <string>

#include "IrPasses.h"

namespace mslsim {

// Builds `void name(void** args, u32 simdgroup, u32 sx, u32 sy, u32 count)`, which runs the 32
// lanes of SIMD-group `simdgroup` of an sx*sy*(count/(sx*sy)) threadgroup of `entry` as the lanes of
// vector instructions. `args` are thread 0's, as the simulator bound them; the built-ins that vary
// per thread are computed from the lane. Works on a copy of `entry` (after every call was inlined
// into it, before the coroutine lowering); `entry` is left alone.
//
// How: values the lanes agree on (uniform: arguments, thread 0's built-ins, what is computed
// from them and loaded from one address) stay scalars; the others become vectors of 32 lanes (a
// float4 per lane, a <128 x float>, lane-major). Control flow is linearised: every block runs
// under a mask of the lanes that reached it, and is skipped when none did, so a branch all lanes
// take the same way costs a test of the mask; a loop runs until no lane goes round again. Memory
// accesses with lane-varying addresses are masked gathers and scatters; a SIMD-group function's
// exchange (hook::kSimdExchange) is a store of the active lanes' values into one buffer the lanes
// share, which every lane then reads; threadgroup_barrier calls remain, for the coroutine
// lowering to suspend at. libm calls with a libmvec variant call it (`math`).
//
// Returns null, with the reason in `whyNot`, for what this does not handle (such kernels run a
// coroutine or fiber per thread): a barrier under lane-dependent control flow, irreducible
// control flow, lane-varying aggregates, compare-and-exchange, calls it cannot scalarise, private
// arrays over 4 KiB per thread.
llvm::Function* vectoriseSimdGroup(llvm::Function& entry, const KernelInfo& info, const std::string& name,
                                   const VectorMathVariant& math, std::string& whyNot);

// The symbol of a kernel's SIMD-group function.
constexpr const char* kSimdGroupPrefix = "__mslsim_lanes.";

}  // namespace mslsim
