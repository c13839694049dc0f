// Turns a front-end program into runnable kernels: lowers threadgroup memory, optimises at -O2,
// inserts cancellation polls and JIT-compiles with LLVM ORC. The code lives as long as any kernel.
#pragma once

#include <string>
#include <vector>

#include "Executor.h"
#include "MslCompiler.h"

namespace mslsim {

struct JitResult {
  bool ok = false;
  std::string error;
  std::vector<ExecutableKernel> kernels;
};

// `instrument`: add memory-access hooks for the checkers (the program should have been compiled
// with line tables so reports name source lines).
JitResult jitCompile(CompiledProgram&& program, bool instrument = false);

}  // namespace mslsim
