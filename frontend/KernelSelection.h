// Only the kernels a compilation generates code for get their bodies instantiated.
//
// An explicit instantiation that names a kernel (`template [[host_name("k")]] [[kernel]] ...;`,
// at the start of a line) of a kernel the compilation does not want becomes an explicit
// instantiation declaration (`extern template ...`): Clang then instantiates its signature, which
// is all the kernel's description needs, and not its body. MLX's JIT libraries instantiate ~20
// kernels each and a pipeline state wants one of them; their bodies were half of each pipeline's
// compile. A listing (no code at all) still instantiates every body, so that errors in any kernel
// are reported when the library is made, as Metal reports them.
#pragma once

#include <set>
#include <string>

#include "SourceRewriter.h"

namespace mslsim {

// Edits `rewritten` (the rewriter's output for `original`, line for line) so that the
// instantiations of kernels not in `wanted` are declarations; columns stay mapped.
void declareUnwantedInstantiations(const std::string& original, RewrittenSource& rewritten,
                                   const std::set<std::string>& wanted);

}  // namespace mslsim
