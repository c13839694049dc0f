// The MSL front end in listing mode (`mslsim compile FILE` without --kernel): compileMsl parses and
// checks the input as MSL source against mslsim's metal_stdlib, rewrites it (address spaces,
// attributes) and describes every kernel, with no code generation. What it returns is used as the
// CLI uses it: diagnostics formatted with their source lines, kernels and arguments described.
// A compile error is the expected answer to a bad source; a crash, a sanitizer report or an
// exception is a finding.
//
// The file is named as if it lay in an empty private directory, so that #include "..." resolves
// to nothing (and the front end refuses includes outside its own directories anyway).
//
// Only mslsim's code (frontend/, the rewriter) is instrumented: Clang and LLVM are Debian's
// libraries, so the fuzzer gets no coverage feedback from inside them and ASan does not check
// their own memory accesses. Clang itself may still crash or hang on garbage: such findings are
// Clang bugs, reported upstream (https://github.com/llvm/llvm-project/issues), not fixed here.
#include <cstdint>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "MslCompiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = mslsim_fuzz::privateDirectory() + "/fuzz.metal";
  std::string source(reinterpret_cast<const char*>(data), size);
  mslsim::CompileOptions options;
  options.kernels = std::vector<std::string>{};  // a listing: parse, check, describe
  mslsim::CompileResult result = mslsim::compileMsl(path, source, options);
  size_t sink = 0;
  for (const mslsim::Diagnostic& d : result.diagnostics) sink += mslsim::formatDiagnostic(d).size();
  for (const mslsim::KernelInfo& k : result.declaredKernels) {
    sink += k.name.size();
    for (const mslsim::ArgumentInfo& a : k.arguments) {
      sink += a.name.size() + a.typeSpelling.size() + a.pointeeType.size() + a.pointeeSize;
      if (a.role == mslsim::ArgumentRole::Builtin) sink += std::string(mslsim::builtinName(a.builtin)).size();
    }
  }
  for (const mslsim::FunctionConstantInfo& c : result.functionConstants) sink += c.name.size() + c.type.size();
  volatile size_t keep = sink;
  (void)keep;
  return 0;
}
