// The public API (include/mslsim/mslsim.h) over the runtime's Program and Launch.
#include <mslsim/mslsim.h>

#include "Program.h"
#include "Report.h"
#include "TieredKernel.h"

namespace mslsim {

const std::string& Kernel::name() const { return kernel_->info.name; }
const KernelInfo& Kernel::info() const { return kernel_->info; }

Library Library::compileFile(const std::string& path, const BuildOptions& o) {
  return compileSource(path, readTextFile(path), o);
}

Library Library::compileSource(const std::string& name, const std::string& source, const BuildOptions& o) {
  try {
    Library l;
    CompileOptions options{o.includeDirs, o.defines, o.fastMath, {}, false, o.functionConstants, o.kernels};
    // Adaptive: the optimised code if an earlier run left it in the cache, else the quick code.
    if (o.tiers == TierPolicy::Adaptive) l.program_ = Program::findCompiled(name, source, options, o.checked, CodeTier::Optimised);
    if (!l.program_)
      l.program_ = Program::compileSource(name, source, options, o.checked,
                                          o.tiers == TierPolicy::Optimised ? CodeTier::Optimised : CodeTier::Quick);
    l.adaptive_ = o.tiers == TierPolicy::Adaptive;
    return l;
  } catch (const CompileFailed& e) {
    throw CompileError(e.what(), e.diagnostics());
  }
}

std::vector<std::string> Library::kernelNames() const {
  return program_->kernelNames();
}

Kernel Library::kernel(const std::string& name) const {
  Kernel k;
  k.program_ = program_;
  k.kernel_ = &program_->kernel(name);
  if (adaptive_) k.tiered_ = std::make_shared<TieredKernel>(program_, name);
  return k;
}

const std::vector<Diagnostic>& Library::warnings() const { return program_->warnings(); }

bool Report::hasErrors() const {
  for (auto& f : findings)
    if (f.severity == Finding::Severity::Error) return true;
  return false;
}

bool Report::hasFinding(const std::string& kind) const {
  for (auto& f : findings)
    if (f.kind == kind) return true;
  return false;
}

Dispatch::Dispatch(const Kernel& kernel) : kernel_(kernel), launch_(std::make_unique<Launch>(*kernel.kernel_)) {}
Dispatch::~Dispatch() = default;
Dispatch::Dispatch(Dispatch&&) noexcept = default;
Dispatch& Dispatch::operator=(Dispatch&&) noexcept = default;

Dispatch& Dispatch::bind(unsigned bufferIndex, HostArray& array) {
  launch_->bindBuffer(bufferIndex, array, "buffer " + std::to_string(bufferIndex));
  return *this;
}

Dispatch& Dispatch::bind(unsigned bufferIndex, HostArray& allocation, uint64_t offset) {
  launch_->bindBuffer(bufferIndex, allocation, offset, allocation.dtype == DType::UInt8,
                      "buffer " + std::to_string(bufferIndex) + " (at byte " + std::to_string(offset) + ")");
  return *this;
}

Dispatch& Dispatch::bind(unsigned bufferIndex, void* allocation, uint64_t bytes, uint64_t offset) {
  if (offset > bytes)
    throw Error("buffer " + std::to_string(bufferIndex) + ": offset " + std::to_string(offset) +
                " is past the end of its " + std::to_string(bytes) + "-byte allocation");
  launch_->bindMemory(bufferIndex, static_cast<uint8_t*>(allocation) + offset, bytes - offset, DType::UInt8,
                      "buffer " + std::to_string(bufferIndex) + " (at byte " + std::to_string(offset) + ")",
                      allocation, bytes, false, /*raw=*/true);
  return *this;
}

Dispatch& Dispatch::bind(const std::string& argumentName, HostArray& array) {
  for (auto& a : kernel_.info().arguments)
    if (a.name == argumentName) {
      if (a.role == ArgumentRole::Buffer) return bind(a.binding, array);
      throw Error("argument '" + argumentName + "' of kernel '" + kernel_.name() +
                  "' is not a buffer: bind threadgroup memory with threadgroupMemory()");
    }
  std::string names;
  for (auto& a : kernel_.info().arguments)
    if (a.role == ArgumentRole::Buffer) names += (names.empty() ? "" : ", ") + a.name;
  throw Error("kernel '" + kernel_.name() + "' has no argument named '" + argumentName +
              "' (buffer arguments: " + names + ")");
}

Dispatch& Dispatch::threadgroupMemory(unsigned index, uint64_t bytes) {
  launch_->setThreadgroupMemory(index, bytes);
  return *this;
}

Report Dispatch::run(Size3 grid, Size3 threadgroup, DispatchMode mode, const DispatchOptions& options) {
  const ExecutableKernel* code = kernel_.kernel_;
  if (kernel_.tiered_) {
    uint64_t threads = uint64_t(grid[0]) * grid[1] * grid[2];
    if (mode == DispatchMode::Threadgroups) threads *= uint64_t(threadgroup[0]) * threadgroup[1] * threadgroup[2];
    code = &kernel_.tiered_->forDispatch(threads);
    launch_->useCode(*code);
  }
  DispatchResult result = launch_->run(mode, grid, threadgroup, options);
  if (kernel_.tiered_) kernel_.tiered_->ran(*code, result.milliseconds);
  Report r;
  r.completed = result.completed;
  r.milliseconds = result.milliseconds;
  r.codeTier = codeTierName(code->tier);
  for (auto& f : result.findings) r.text += kernel_.program_->formatFinding(f) + "\n";
  r.json = findingsToJson(kernel_.name(), result.findings);
  r.writers = std::move(result.writers);
  r.findings = std::move(result.findings);
  return r;
}

}  // namespace mslsim
