// mslsim's C++ API: compile Metal Shading Language compute kernels, bind host arrays, dispatch
// on the simulator, read results and the checkers' report. Link with mslsim::mslsim.
//
//   mslsim::Library library = mslsim::Library::compileFile("saxpy.metal");
//   mslsim::HostArray x = mslsim::HostArray::of(std::vector<float>{1, 2, 3});
//   mslsim::HostArray y = mslsim::HostArray::of(std::vector<float>(3, 0.0f));
//   mslsim::Report report = mslsim::Dispatch(library.kernel("saxpy"))
//                               .bind(0, x).bind("y", y)
//                               .run({3, 1, 1}, {32, 1, 1});
//   if (report.hasErrors()) std::cerr << report.text;
//
// MLX-style kernel bodies: <mslsim/mlx.h>. GoogleTest helpers: <mslsim/gtest.h>.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mslsim/host_array.h>
#include <mslsim/kernel_info.h>
#include <mslsim/types.h>

namespace mslsim {

// What this build of mslsim is: `mslsim --version`, `mslsim.__version__` / `mslsim.build_info()`.
struct BuildInfo {
  std::string version;  // "0.1.0"
  std::string commit;   // the git commit the build was configured at, "unknown" outside a clone
  std::string llvm;     // the LLVM/Clang version it compiles kernels with, "16.0.6"
};
const BuildInfo& buildInfo();
// "mslsim 0.1.0 (commit 3153cf6a1b2c), LLVM/Clang 16.0.6"
std::string versionText();

class Program;  // the compiled program (library-internal)
class TieredKernel;
struct ExecutableKernel;
class Launch;

struct BuildOptions {
  std::vector<std::string> includeDirs;  // -I
  std::vector<std::string> defines;      // NAME or NAME=VALUE
  bool fastMath = false;
  // Values of `[[function_constant(n)]]` variables, by n (unset ones are zero and
  // is_function_constant_defined() is false for them).
  std::map<unsigned, double> functionConstants;
  // Checked builds carry the instrumentation bounds/races/uninit checks need; an unchecked build
  // runs faster and only runs sync checks.
  bool checked = true;
  // Which kernels get code now, by name: every kernel when unset. The source is parsed and checked
  // either way (errors are thrown at once); a kernel not listed gets its code when kernel() first
  // asks for it, as a Metal library makes code per pipeline.
  std::optional<std::vector<std::string>> kernels;
  // How the code is made (TierPolicy in <mslsim/types.h>): Optimised at once by default.
  TierPolicy tiers = TierPolicy::Optimised;
};

// The kernel failed to compile: `diagnostics()` point at the user's file, line and column.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::vector<Diagnostic> diagnostics)
      : Error(what), diagnostics_(std::move(diagnostics)) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

class Kernel {
 public:
  const std::string& name() const;
  const KernelInfo& info() const;  // arguments with their bindings, roles, types

 private:
  friend class Library;
  friend class Dispatch;
  std::shared_ptr<const Program> program_;
  const ExecutableKernel* kernel_ = nullptr;
  std::shared_ptr<TieredKernel> tiered_;  // TierPolicy::Adaptive: picks the code per dispatch
};

// A compiled .metal program (cached per process: compiling the same text twice is free).
class Library {
 public:
  static Library compileFile(const std::string& path, const BuildOptions& options = {});
  // `name` stands for the file in diagnostics (and resolves #include "...").
  static Library compileSource(const std::string& name, const std::string& source,
                               const BuildOptions& options = {});

  std::vector<std::string> kernelNames() const;  // every kernel of the source, with code or not
  Kernel kernel(const std::string& name) const;  // throws Error naming the kernels there are
  const std::vector<Diagnostic>& warnings() const;

 private:
  std::shared_ptr<const Program> program_;
  bool adaptive_ = false;
};

// What a dispatch found: findings as values, and as text (with source lines) and JSON.
struct Report {
  bool completed = false;           // every thread ran to its end
  std::vector<Finding> findings;
  double milliseconds = 0;
  std::string codeTier;             // the code the dispatch ran: "quick" or "optimised" (TierPolicy)
  std::string text;                 // one block per finding, as the CLI prints it
  std::string json;                 // the schema of `mslsim run --report-json`
  // With DispatchOptions::trackWriters: who last wrote each element, by [[buffer(n)]].
  std::map<unsigned, std::vector<ElementWriter>> writers;
  bool hasErrors() const;
  bool hasFinding(const std::string& kind) const;
};

// One dispatch: bind arrays by [[buffer(n)]] index or argument name, then run. The arrays must
// outlive run(); the kernel writes them in place.
class Dispatch {
 public:
  explicit Dispatch(const Kernel& kernel);
  ~Dispatch();
  Dispatch(Dispatch&&) noexcept;
  Dispatch& operator=(Dispatch&&) noexcept;

  Dispatch& bind(unsigned bufferIndex, HostArray& array);
  Dispatch& bind(const std::string& argumentName, HostArray& array);
  // Metal's setBuffer(buffer, offset, index): `allocation` bound with the kernel's pointer at byte
  // `offset`. One allocation may be bound at several indices; bounds are the allocation's (reads
  // past the view but inside the allocation are legal). A uint8 allocation is untyped memory and
  // binds to any element type, like an MTLBuffer packing tensors of several types.
  Dispatch& bind(unsigned bufferIndex, HostArray& allocation, uint64_t offset);
  // The same over memory the caller owns (an MTLBuffer's contents): `bytes` bytes at `allocation`,
  // untyped, bound at byte `offset`. The memory must outlive run().
  Dispatch& bind(unsigned bufferIndex, void* allocation, uint64_t bytes, uint64_t offset);
  Dispatch& threadgroupMemory(unsigned index, uint64_t bytes);
  // Throws Error for binding mistakes (naming the argument); kernel bugs are in the Report.
  Report run(Size3 grid, Size3 threadgroup, DispatchMode mode = DispatchMode::Threads,
             const DispatchOptions& options = {});

 private:
  Kernel kernel_;
  std::unique_ptr<Launch> launch_;
};

}  // namespace mslsim
