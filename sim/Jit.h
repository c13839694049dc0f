// Turns a front-end program into runnable kernels: lowers threadgroup memory, optimises at -O2,
// inserts cancellation polls and JIT-compiles with LLVM ORC. The code lives as long as any kernel.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include "Executor.h"
#include "MslCompiler.h"

namespace mslsim {

// A compiled program before it is loaded: native object code plus everything needed to run its
// kernels. Plain data, so it can be stored on disk and loaded in a later process without Clang
// or code generation.
struct CompiledObject {
  std::vector<char> object;  // ELF relocatable object for this machine
  std::vector<ExecutableKernel> kernels;  // entry == nullptr until loaded
  std::shared_ptr<const SourceIndex> sources;
  // How long making it took, the front end included (TieredKernel estimates the optimised tier
  // from the quick one's): kept in the compile cache with the object.
  double generationMs = 0;
};

struct JitResult {
  bool ok = false;
  std::string error;
  std::vector<ExecutableKernel> kernels;
};

// Lowers, optimises and generates code at `tier`. `instrument`: add memory-access hooks for the
// checkers (the program should have been compiled with line tables so reports name source lines).
// Returns false with `error` set on an internal error.
// `kernelDone(done, total)` is called as each kernel's machine code is finished (for progress).
// `paths` says which execution paths an optimised build makes code for (the quick tier's code is
// per-thread whatever it says).
bool compileToObject(CompiledProgram&& program, bool instrument, CodeTier tier, CodePaths paths, CompiledObject& out,
                     std::string& error, const std::function<void(size_t done, size_t total)>& kernelDone = {});

// Links an object into a fresh JIT and resolves its kernels' entry points.
JitResult loadObject(const CompiledObject& object);

}  // namespace mslsim
