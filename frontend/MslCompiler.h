// The front end: MSL source -> Clang (C++17 with MSL's address-space words erased) -> an LLVM module
// plus a description of every kernel. It knows nothing about execution: the module it returns has
// one trampoline per kernel, `void <entrySymbol>(void** args)`, where args[i] points at the value of
// the kernel's i-th parameter (for a reference parameter, at the referenced object).
#pragma once

#include <mslsim/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mslsim/kernel_info.h>
#include "SourceIndex.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace mslsim {


struct CompileOptions {
  std::vector<std::string> includeDirs;  // -I
  std::vector<std::string> defines;      // -D NAME[=VALUE]
  bool fastMath = false;                 // defines __FAST_MATH__ and allows reassociation
  // Embedded headers included before the source, e.g. "__mslsim/mlx_preamble.h" (MLX kernels).
  std::vector<std::string> preincludes;
  // Emit line tables (file, line, column per instruction), for checkers' reports.
  bool lineTables = false;
  // Values of `[[function_constant(n)]]` variables, by n (unset ones are zero and not defined).
  std::map<unsigned, double> functionConstants;
  // Which kernels get code, by host name: every kernel when unset; an empty list parses, checks
  // and describes the file without generating code (a listing).
  std::optional<std::vector<std::string>> kernels;
  // Start from the file's precompiled prefix when it has one (see SourcePrefix.h): the same
  // result as parsing the whole file, which tests compare it with.
  bool precompiledPrefix = true;
};

// Where the precompiled standard library (see PrecompiledStdlib) is kept between processes (e.g.
// the compile cache's directory), and the identity of this build of mslsim, part of its name.
// Asked at the first compile that uses it; an empty directory (or no function, the default)
// keeps it in memory only.
struct PrecompiledStdlibPlace {
  std::string directory;
  std::string build;
};
void setPrecompiledStdlibPlace(std::function<PrecompiledStdlibPlace()> place);

// Everything in `options` that changes what compileMsl produces, as text: part of every cache key.
std::string describeOptions(const CompileOptions& options);

struct CompiledProgram {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::vector<KernelInfo> kernels;
  std::shared_ptr<const SourceIndex> sources;  // the user files this program was compiled from
  CompiledProgram();
  CompiledProgram(CompiledProgram&&) noexcept;
  CompiledProgram& operator=(CompiledProgram&&) noexcept;
  ~CompiledProgram();
};

struct CompileResult {
  bool ok = false;
  CompiledProgram program;              // valid when ok; its kernels are those that got code
  std::vector<Diagnostic> diagnostics;  // errors (when !ok), warnings and notes
  std::vector<KernelInfo> declaredKernels;  // every kernel of the file, with or without code
  std::vector<FunctionConstantInfo> functionConstants;
  bool startedFromPrefix = false;  // the file's precompiled prefix was used (CompileOptions::precompiledPrefix)
};

// Compiles `source` as if it were the contents of the file `path` (used for diagnostics and for
// resolving #include "..." relative to it). `path` need not exist.
CompileResult compileMsl(const std::string& path, const std::string& source,
                         const CompileOptions& options);

// The program's LLVM IR as text (for `mslsim compile --emit-llvm`).
std::string printModule(const CompiledProgram& program);

// Identifies this front end's output: mslsim's version, Clang's, and the embedded headers' text.
// Part of every compile-cache key.
std::string frontendFingerprint();

// The names of the embedded MSL standard library headers (for tests and `compile --list-headers`).
std::vector<std::string> embeddedHeaderNames();

}  // namespace mslsim
