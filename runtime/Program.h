// The host API: compile a .metal program once, look kernels up by name, bind buffers by index and
// dispatch. The CLI, the test-suite runner and (later) the Python module are thin layers over this.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "Executor.h"
#include <mslsim/host_array.h>
#include "MslCompiler.h"
#include "UserInput.h"

namespace mslsim {

// The program did not compile; `diagnostics` say where.
class CompileFailed : public Error {
 public:
  CompileFailed(std::string path, std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// While one lives, the compilations on its thread report their phases to it ("loading from the
// cache", "parsing", "generating code for 1 kernel"): the CLI's progress line.
class CompilePhases {
 public:
  explicit CompilePhases(std::function<void(const std::string& phase)> listener);
  ~CompilePhases();
  CompilePhases(const CompilePhases&) = delete;
  CompilePhases& operator=(const CompilePhases&) = delete;
  static void note(const std::string& phase);  // to this thread's listener, if any

 private:
  std::function<void(const std::string&)> previous_;
};

class Program {
 public:
  // Compiles (or returns the process-wide cached compilation of) `path` with `options`. A checked
  // build carries the memory-access instrumentation that bounds, races and uninit need (and line
  // tables for their reports); an unchecked one runs at full speed with only sync checks.
  // `tier` says how much work code generation puts in (sim/Executor.h); a listing has no code.
  // `paths` says which execution paths an optimised build makes code for (CodePaths; a kernel
  // without per-thread code makes it when a dispatch needs it).
  static std::shared_ptr<const Program> compileFile(const std::string& path,
                                                    const CompileOptions& options = {},
                                                    bool checked = true, CodeTier tier = CodeTier::Optimised,
                                                    CodePaths paths = CodePaths::Default);
  static std::shared_ptr<const Program> compileSource(const std::string& path,
                                                      const std::string& source,
                                                      const CompileOptions& options = {},
                                                      bool checked = true, CodeTier tier = CodeTier::Optimised,
                                                      CodePaths paths = CodePaths::Default);
  // The same compilation if this process or the compile cache has it already, else null.
  static std::shared_ptr<const Program> findCompiled(const std::string& path, const std::string& source,
                                                     const CompileOptions& options, bool checked, CodeTier tier);

  // `options.kernels` says which kernels get code now; any other kernel of the file gets its code
  // when kernel() first asks for it.
  const std::string& path() const { return path_; }
  // The kernels compiled with the program (all of them unless options.kernels chose some).
  const std::vector<ExecutableKernel>& kernels() const { return kernels_; }
  // Generates the kernel's code (at this program's tier) if it has none yet. Throws Error naming
  // the available kernels when `name` is not one of them.
  const ExecutableKernel& kernel(const std::string& name) const;
  // The program that holds `name`'s code at `tier`: this one, or one compiled (or found) for it.
  std::shared_ptr<const Program> withKernelAt(const std::string& name, CodeTier tier) const;
  CodeTier tier() const { return tier_; }
  // Every kernel of the file by host name, whether it has code yet or not.
  std::vector<std::string> kernelNames() const;
  // The host names of every kernel in a file: a parse, no code.
  static std::vector<std::string> listKernels(const std::string& path, const std::string& source,
                                              const CompileOptions& options);
  const std::vector<Diagnostic>& warnings() const { return warnings_; }
  double compileMilliseconds() const { return compileMs_; }
  // How long making `name`'s code took when it was made (in this process or before it, from the
  // cache): what a TieredKernel estimates the optimised tier from.
  double codeMilliseconds(const std::string& name) const;
  bool fromDiskCache() const { return fromDiskCache_; }  // loaded from the compile cache

  // "file:line:col" plus the source line and a caret, for reports about this program.
  std::string describe(const SourcePosition& where) const;
  std::string formatFinding(const Finding& finding) const;

 private:
  Error noSuchKernel(const std::string& name, const std::vector<std::string>& available) const;

  static std::shared_ptr<const Program> obtain(const std::string& path, const std::string& source,
                                               const CompileOptions& options, bool checked, CodeTier tier,
                                               bool compileIfMissing, CodePaths paths = CodePaths::Default);
  // `kernels_` from a compile or the cache; a kernel without per-thread code learns where to get it.
  void setKernels(std::vector<ExecutableKernel> kernels);
  // `name` built with CodePaths::PerThread (ExecutableKernel::withPerThreadCode).
  const ExecutableKernel& perThreadKernel(const std::string& name) const;

  std::string path_, source_;
  CompileOptions options_;
  bool checked_ = true;
  CodeTier tier_ = CodeTier::Optimised;
  CodePaths paths_ = CodePaths::Default;
  mutable std::mutex onDemandMutex_;
  mutable std::map<std::string, std::shared_ptr<const Program>> onDemand_;  // kernels generated later
  std::shared_ptr<const SourceIndex> sources_;
  std::vector<ExecutableKernel> kernels_;
  std::vector<std::string> declaredKernels_;  // when code is generated on demand (options_.kernels)
  std::vector<Diagnostic> warnings_;
  double compileMs_ = 0;
  double generationMs_ = 0;  // codeMilliseconds of the kernels with code here
  bool fromDiskCache_ = false;
};


// One dispatch of one kernel: bindings by Metal index, then run.
class Launch {
 public:
  explicit Launch(const ExecutableKernel& kernel) : kernel_(&kernel) {}
  // Runs `code` from now on: the same kernel at another tier (the bindings stay).
  void useCode(const ExecutableKernel& code) { kernel_ = &code; }

  // Binds `array` (whose bytes the kernel reads and writes in place) to [[buffer(index)]]. `origin`
  // names where the data came from, for error messages (a file name or a spec).
  void bindBuffer(unsigned index, HostArray& array, const std::string& origin);
  // As Metal's setBuffer(buffer, offset, index): binds `array` as an allocation, the kernel's
  // pointer at byte `offset`. One allocation may be bound at several indices (aliases, overlapping
  // views); bounds are the allocation's, so an access before the offset or past the view but
  // inside the allocation is legal, as on Metal. With `raw`, the allocation is untyped memory (a
  // packed MTLBuffer) and binds to any element type.
  void bindBuffer(unsigned index, HostArray& array, uint64_t offset, bool raw, const std::string& origin);
  // Binds `bytes` bytes of `dtype` elements at `address` (which must outlive the run).
  // `regionBegin`/`regionBytes` give the whole allocation when it extends before `address` (a view
  // with negative strides); by default the region is [address, address + bytes).
  // With `raw`, the memory is untyped and binds to any element type.
  void bindMemory(unsigned index, void* address, uint64_t bytes, DType dtype, const std::string& origin,
                  const void* regionBegin = nullptr, uint64_t regionBytes = 0, bool uninitialized = false,
                  bool raw = false);
  void setThreadgroupMemory(unsigned index, uint64_t bytes);
  // Binds buffers given as specs (readBufferSpecs): a data spec's allocation, kept in `storage` at
  // its index, is bound there; `@J` or `@J+BYTES` binds buffer J's allocation again, at a byte
  // offset (an alias or a view). A uint8 allocation bound so is untyped memory (a packed
  // MTLBuffer). `what` prefixes error messages ("--buffer").
  void bindBufferSpecs(const std::map<unsigned, std::string>& specs, std::map<unsigned, HostArray>& storage,
                       const std::string& baseDir, const std::string& what);

  // Checks the bindings against the kernel's arguments (throws Error naming the argument at
  // fault) and runs the grid.
  DispatchResult run(DispatchMode mode, Size3 grid, Size3 threadgroup,
                     const DispatchOptions& options = DispatchOptions());

 private:
  struct Binding {
    HostArray* array;  // when bound from a HostArray (its dtype may be reinterpreted), else null
    void* address;
    uint64_t bytes;
    DType dtype;
    std::string origin;
    const void* regionBegin = nullptr;
    uint64_t regionBytes = 0;
    bool uninitialized = false;
    uint64_t offset = 0;  // of the kernel's pointer in `array`
    bool raw = false;     // untyped memory: any element type
  };
  const ExecutableKernel* kernel_;
  std::map<unsigned, Binding> buffers_;
  std::map<unsigned, uint64_t> threadgroupMemory_;
};

// The MSL element type names a dtype may be bound to ("float" for float32, ...).
bool dtypeMatchesElementType(DType dtype, const std::string& mslType);

}  // namespace mslsim
