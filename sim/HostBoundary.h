// What a kernel's native code may reach of the host process. Kernels are untrusted input that runs
// as native code in our process; MSL has no way to call anything outside the program and the
// Metal standard library, so neither does the JIT: a module may refer to mslsim's own runtime entry
// points and to the math and compiler-support functions that code generation lowers the standard
// library to, and nothing else. Enforced twice: on the IR before code generation (with the user's
// source line in the message) and at link time (the JIT resolves only allowed names, so a cached
// object cannot reach more than a fresh one).
#pragma once

#include <string>

#include "SourceIndex.h"

namespace llvm {
class Module;
}

namespace mslsim {

// Whether the JIT may resolve `name` (an unmangled linker name) from the process: mslsim's runtime
// symbols, libm float/double math, glibc's vector math variants of those (_ZGV...), memcpy/memset/
// memmove, and compiler-rt's soft-float and wide-integer helpers.
bool isAllowedHostSymbol(const std::string& name);

// Checks `module` against the boundary: every external function or variable it uses must be
// allowed; no inline assembly (in a function or at module level), no global constructors or
// destructors, no ifuncs. With `fromFrontEnd` (the module as the front end made it, before any of
// mslsim's passes), also what only the program's own text can contain: an allowed library function
// that writes through a pointer (frexp, modf, remquo, sincos; memcpy and its kin, which the program
// could only have declared by hand; glibc's vector variants, which only optimisation creates) may
// be called only with the address of a local variable large enough for what it writes, so a forged
// pointer cannot reach the host through a function the checks do not see into. (Recursion is allowed, as Apple's compiler allows it: MLX's
// LoopedElemToLoc::next calls itself; a thread that exhausts its stack is reported.) On a violation returns false with `error` a compile error in the
// user's terms ("FILE:LINE:COL: error: ..."), naming the symbol as the source spelt it.
bool checkHostBoundary(const llvm::Module& module, const SourceIndex& sources, bool fromFrontEnd, std::string& error);

// MSL has no function pointers to anything but the program's own functions, and a call through
// a pointer the program forged (from an integer, or from bytes it wrote) would jump into the host.
// Every call through a pointer in `module` (as the front end made it) becomes a call to the
// program function the pointer equals, or through a null pointer when it equals none: a fault
// the executor reports as an access to invalid memory. Code that makes no such call is unchanged.
void confineIndirectCalls(llvm::Module& module);

}  // namespace mslsim
