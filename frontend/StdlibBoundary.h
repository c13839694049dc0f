// What of mslsim's Metal standard library a program may name. The standard library reaches the
// simulator through a few C functions (`__mslsim_simd_exchange`, `__mslsim_threadgroup_barrier`,
// ...; include/metal/__mslsim/hooks.h) that take raw pointers and trust them: called from a kernel
// with a forged pointer they would write host memory past every check. They are for the library's
// own inline functions only, so a program may not call them, declare them, nor reach a symbol by
// another name than its own (asm labels, weakref and alias attributes, which MSL does not have).
// The IR-level boundary (sim/HostBoundary.h) then sees only names the program could call safely.
#pragma once

#include <memory>
#include <string>

namespace clang {
class ASTConsumer;
class CompilerInstance;
}  // namespace clang

namespace mslsim {

// A consumer that reports, as Clang errors at the offending token, every use or declaration of a
// standard-library hook and every symbol renaming in text outside `headerRoot` (the directory the
// embedded standard library is served from). Declarations read from a precompiled header are not
// walked again: the standard library's are its own, and a precompiled prefix of the user's file was
// walked by this check when it was built (a prefix with an error is not kept).
std::unique_ptr<clang::ASTConsumer> makeStdlibBoundaryCheck(clang::CompilerInstance& ci, std::string headerRoot);

}  // namespace mslsim
