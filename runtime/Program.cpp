#include "Program.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "CompileCache.h"
#include "Jit.h"
#include "Report.h"

namespace mslsim {

namespace {

std::string joinDiagnostics(const std::string& path, const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (auto& d : diagnostics)
    if (d.severity == Diagnostic::Severity::Error) {
      text = formatDiagnostic(d);
      break;
    }
  return text.empty() ? path + ": compilation failed" : text;
}

}  // namespace

CompileFailed::CompileFailed(std::string path, std::vector<Diagnostic> diagnostics)
    : Error(joinDiagnostics(path, diagnostics)), diagnostics_(std::move(diagnostics)) {}

namespace {
thread_local std::function<void(const std::string&)> tCompilePhases;
}

CompilePhases::CompilePhases(std::function<void(const std::string&)> listener)
    : previous_(std::exchange(tCompilePhases, std::move(listener))) {}
CompilePhases::~CompilePhases() { tCompilePhases = std::move(previous_); }
void CompilePhases::note(const std::string& phase) {
  if (tCompilePhases) tCompilePhases(phase);
}

std::shared_ptr<const Program> Program::compileFile(const std::string& path, const CompileOptions& options,
                                                    bool checked, CodeTier tier, CodePaths paths) {
  return compileSource(path, readTextFile(path), options, checked, tier, paths);
}

std::shared_ptr<const Program> Program::compileSource(const std::string& path, const std::string& source,
                                                      const CompileOptions& options, bool checked, CodeTier tier,
                                                      CodePaths paths) {
  return obtain(path, source, options, checked, tier, /*compileIfMissing=*/true, paths);
}

std::shared_ptr<const Program> Program::findCompiled(const std::string& path, const std::string& source,
                                                     const CompileOptions& options, bool checked, CodeTier tier) {
  return obtain(path, source, options, checked, tier, /*compileIfMissing=*/false);
}

std::shared_ptr<const Program> Program::obtain(const std::string& path, const std::string& source,
                                               const CompileOptions& baseOptions, bool checked, CodeTier tier,
                                               bool compileIfMissing, CodePaths paths) {
  CompileOptions options = baseOptions;
  options.lineTables = true;
  // A listing has no code: one entry on disk for both tiers (in memory, the program knows the tier
  // the kernels it makes on demand get).
  bool listing = options.kernels && options.kernels->empty();
  // The quick tier's code is per-thread whatever `paths` says.
  if (tier == CodeTier::Quick || listing) paths = CodePaths::Default;
  const std::string variant = std::string(checked ? "checked" : "unchecked") +
                              (tier == CodeTier::Quick && !listing ? "-quick" : "") +
                              (paths == CodePaths::PerThread ? "-per-thread" : "");
  // Compilation is cached for the life of the process, keyed by everything that affects it.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Program>> cache;
  std::string key = path + '\0' + source + '\0' + describeOptions(options) + '\1' + variant + codeTierName(tier);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  auto start = std::chrono::steady_clock::now();
  auto program = std::make_shared<Program>();
  program->path_ = path;
  program->source_ = source;
  program->options_ = options;
  program->checked_ = checked;
  program->tier_ = tier;
  program->paths_ = paths;
  CompileCache& disk = CompileCache::instance();
  std::string diskKey = disk.enabled() ? CompileCache::key(path, source, options, variant, frontendFingerprint()) : "";
  // A run of some kernels is served by their own entry, or by one that holds every kernel of the
  // file (what `mslsim compile --kernel '*'` stores).
  std::vector<std::string> diskKeys = {diskKey};
  if (disk.enabled() && options.kernels) {
    CompileOptions everything = options;
    everything.kernels.reset();
    diskKeys.push_back(CompileCache::key(path, source, everything, variant, frontendFingerprint()));
  }
  auto holdsWanted = [&](const std::vector<ExecutableKernel>& kernels) {
    if (!options.kernels) return true;
    for (auto& name : *options.kernels)
      if (std::none_of(kernels.begin(), kernels.end(), [&](auto& k) { return k.info.name == name; })) return false;
    return true;
  };
  // Served from the disk cache: kept in memory under the process's own key.
  auto served = [&](CachedCompilation& cached) {
    program->sources_ = cached.object.sources;
    program->warnings_ = std::move(cached.warnings);
    program->fromDiskCache_ = true;
    program->compileMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    cache[key] = program;
    return program;
  };
  for (auto& entry : disk.enabled() ? diskKeys : std::vector<std::string>{})
    if (std::optional<CachedCompilation> cached = (CompilePhases::note("loading from the cache"), disk.load(entry, path, source))) {
      if (cached->declaredKernels) {  // a listing: the names, no code
        if (!options.kernels || !options.kernels->empty()) continue;
        program->declaredKernels_ = std::move(*cached->declaredKernels);
        return served(*cached);
      }
      JitResult jit = loadObject(cached->object);
      if (jit.ok && holdsWanted(jit.kernels)) {
        program->setKernels(std::move(jit.kernels));
        program->generationMs_ = cached->object.generationMs;
        return served(*cached);
      }
    }
  if (!compileIfMissing) return nullptr;
  CompilePhases::note("parsing");
  CompileResult compiled = compileMsl(path, source, options);
  if (!compiled.ok) throw CompileFailed(path, std::move(compiled.diagnostics));
  auto sources = compiled.program.sources;
  program->sources_ = sources;
  for (auto& k : compiled.declaredKernels) program->declaredKernels_.push_back(k.name);
  // No kernel chosen (options.kernels empty): checked, but no code until kernel() asks for one.
  if (compiled.program.module) {
    CompiledObject object;
    std::string error;
    size_t count = compiled.program.kernels.size();
    const std::string generating = "generating code for " + std::to_string(count) + (count == 1 ? " kernel" : " kernels");
    CompilePhases::note(generating);
    auto kernelDone = [&](size_t done, size_t total) {
      CompilePhases::note(generating + ": " + std::to_string(done) + " of " + std::to_string(total) + " done");
    };
    if (!compileToObject(std::move(compiled.program), checked, tier, paths, object, error, kernelDone))
      // A located error ("FILE:LINE:COL: error: ...") names its file already.
      throw Error(error.rfind("error:", 0) == 0 || error.rfind("internal error", 0) == 0 ? path + ": " + error : error);
    JitResult jit = loadObject(object);
    if (!jit.ok) throw Error(path + ": " + jit.error);
    program->setKernels(std::move(jit.kernels));
    object.generationMs = program->generationMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (auto& d : compiled.diagnostics)
      if (d.severity != Diagnostic::Severity::Error) program->warnings_.push_back(d);
    if (disk.enabled()) disk.store(diskKey, path, object, program->warnings_);
  } else {
    for (auto& d : compiled.diagnostics)
      if (d.severity != Diagnostic::Severity::Error) program->warnings_.push_back(d);
    if (disk.enabled()) {
      CompiledObject listing;
      listing.sources = sources;
      disk.store(diskKey, path, listing, program->warnings_, program->declaredKernels_);
    }
  }
  program->compileMs_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  cache[key] = program;
  return program;
}

const ExecutableKernel& Program::kernel(const std::string& name) const {
  for (auto& k : kernels_)
    if (k.info.name == name) return k;
  if (!options_.kernels) {  // every kernel has code: there is no such kernel
    std::vector<std::string> names;
    for (auto& k : kernels_) names.push_back(k.info.name);
    throw noSuchKernel(name, names);
  }
  // Generated on first use, as a Metal library makes a pipeline for one function.
  auto named = [&](const Program& p) -> const ExecutableKernel* {
    for (auto& k : p.kernels_)
      if (k.info.name == name) return &k;
    return nullptr;
  };
  {
    std::lock_guard<std::mutex> lock(onDemandMutex_);
    auto it = onDemand_.find(name);
    if (it != onDemand_.end()) return *named(*it->second);
  }
  CompileOptions options = options_;
  options.kernels = std::vector<std::string>{name};
  std::shared_ptr<const Program> generated = compileSource(path_, source_, options, checked_, tier_, paths_);
  if (!named(*generated)) throw noSuchKernel(name, listKernels(path_, source_, options_));
  std::lock_guard<std::mutex> lock(onDemandMutex_);
  return *named(*onDemand_.emplace(name, generated).first->second);
}

void Program::setKernels(std::vector<ExecutableKernel> kernels) {
  kernels_ = std::move(kernels);
  // Programs live as long as the process (obtain's cache holds them), and so do their kernels.
  for (ExecutableKernel& k : kernels_)
    if (!k.perThreadCode)
      k.withPerThreadCode = [this, name = k.info.name]() -> const ExecutableKernel& { return perThreadKernel(name); };
}

const ExecutableKernel& Program::perThreadKernel(const std::string& name) const {
  CompileOptions options = options_;
  options.kernels = std::vector<std::string>{name};
  std::shared_ptr<const Program> built =
      obtain(path_, source_, options, checked_, tier_, /*compileIfMissing=*/true, CodePaths::PerThread);
  return built->kernel(name);
}

double Program::codeMilliseconds(const std::string& name) const {
  std::lock_guard<std::mutex> lock(onDemandMutex_);
  auto it = onDemand_.find(name);
  return it != onDemand_.end() ? it->second->generationMs_ : generationMs_;
}

std::shared_ptr<const Program> Program::withKernelAt(const std::string& name, CodeTier tier) const {
  CompileOptions options = options_;
  options.kernels = std::vector<std::string>{name};
  std::shared_ptr<const Program> p = compileSource(path_, source_, options, checked_, tier, paths_);
  p->kernel(name);  // throws naming the kernels there are
  return p;
}

std::vector<std::string> Program::kernelNames() const {
  std::vector<std::string> names;
  if (options_.kernels) {
    // Loaded from a cache entry holding every kernel, the declared list was not parsed.
    if (declaredKernels_.empty() && kernels_.empty()) return listKernels(path_, source_, options_);
    if (!declaredKernels_.empty()) return declaredKernels_;
  }
  for (auto& k : kernels_) names.push_back(k.info.name);
  return names;
}

Error Program::noSuchKernel(const std::string& name, const std::vector<std::string>& names) const {
  std::string available;
  for (auto& n : names) available += (available.empty() ? "" : ", ") + n;
  if (names.size() > 20) {
    available.clear();
    // A library of thousands of kernels: the ones whose names share the most with `name`.
    std::vector<std::pair<size_t, std::string>> ranked;
    for (auto& n : names) {
      size_t common = 0;
      while (common < n.size() && common < name.size() && n[common] == name[common]) ++common;
      ranked.push_back({common, n});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < 10; ++i) available += (i ? ", " : "") + ranked[i].second;
    available = std::to_string(names.size()) + " kernels, the nearest: " + available +
                "; `mslsim compile` lists them all";
  }
  return Error(path_ + ": no kernel named '" + name + "' (kernels: " + (available.empty() ? "none" : available) + ")");
}

std::vector<std::string> Program::listKernels(const std::string& path, const std::string& source,
                                              const CompileOptions& baseOptions) {
  CompileOptions options = baseOptions;
  options.kernels = std::vector<std::string>{};
  CompileResult listed = compileMsl(path, source, options);
  if (!listed.ok) throw CompileFailed(path, std::move(listed.diagnostics));
  std::vector<std::string> names;
  for (auto& k : listed.declaredKernels) names.push_back(k.name);
  return names;
}

std::string Program::describe(const SourcePosition& where) const {
  std::string line = sources_ ? sources_->line(where.file, where.line) : "";
  if (line.empty() && where.file == path_) line = SourceIndex::lineOfText(source_, where.line);
  return describePosition(where, line);
}

std::string Program::formatFinding(const Finding& f) const {
  return mslsim::formatFinding(f, [this](const SourcePosition& where) { return describe(where); });
}

bool dtypeMatchesElementType(DType dtype, const std::string& mslType) {
  // Strip vector width and atomic wrappers: float4 -> float, atomic<float> / atomic_uint -> float / uint.
  std::string t = mslType;
  if (t.rfind("metal::", 0) == 0) t = t.substr(7);
  if (t.rfind("atomic<", 0) == 0 && t.back() == '>') t = t.substr(7, t.size() - 8);
  if (t.rfind("atomic_", 0) == 0) t = t.substr(7);
  if (t.rfind("packed_", 0) == 0) t = t.substr(7);
  // A vector type names its element type followed by 2, 3 or 4 (float4, ushort2); int32_t does not.
  if (t.size() > 1 && (t.back() == '2' || t.back() == '3' || t.back() == '4') &&
      std::isalpha(static_cast<unsigned char>(t[t.size() - 2])))
    t.pop_back();
  static const std::multimap<DType, std::string> kNames = {
      {DType::Float32, "float"},     {DType::Float16, "half"},       {DType::Float16, "_Float16"},
      {DType::Float16, "float16_t"}, {DType::BFloat16, "bfloat"},    {DType::BFloat16, "bfloat16_t"},
      {DType::UInt16, "bfloat"},     {DType::UInt16, "bfloat16_t"},  {DType::Int8, "char"},
      {DType::Int8, "int8_t"},       {DType::Int8, "signed char"},   {DType::Int16, "short"},
      {DType::Int16, "int16_t"},     {DType::Int32, "int"},          {DType::Int32, "int32_t"},
      {DType::Int64, "long"},        {DType::Int64, "int64_t"},      {DType::UInt8, "uchar"},
      {DType::UInt8, "uint8_t"},     {DType::UInt8, "unsigned char"}, {DType::UInt16, "ushort"},
      {DType::UInt16, "uint16_t"},   {DType::UInt16, "unsigned short"}, {DType::UInt32, "uint"},
      {DType::UInt32, "uint32_t"},   {DType::UInt32, "unsigned int"}, {DType::UInt64, "ulong"},
      {DType::UInt64, "uint64_t"},   {DType::UInt64, "unsigned long"}, {DType::UInt64, "size_t"},
      {DType::Bool, "bool"},         {DType::Int8, "bool"},          {DType::UInt8, "bool"},
      {DType::Int64, "long long"},   {DType::UInt64, "unsigned long long"},
      {DType::Float64, "double"},    {DType::Complex64, "complex64_t"},
      {DType::Complex64, "complex_t<float>"}};
  // Integers of one width match whatever their signedness: host code binds an `int` to a
  // `constant uint&` (MLX does so everywhere) and Metal, which binds bytes, accepts it.
  auto isInteger = [](DType d) { return !isFloating(d) && d != DType::Bool && d != DType::Complex64; };
  // A byte pointer addresses raw memory, as in C: ggml takes every tensor as `device const char*`
  // and casts it to the tensor's type.
  if (t == "char" || t == "uchar" || t == "int8_t" || t == "uint8_t" || t == "unsigned char" ||
      t == "signed char" || t == "void")
    return true;
  bool knownType = false;
  for (auto& [d, name] : kNames)
    if (name == t) {
      knownType = true;
      if (d == dtype) return true;
      if (isInteger(d) && isInteger(dtype) && dtypeSize(d) == dtypeSize(dtype)) return true;
    }
  // Structs and other element types: only sizes can be checked.
  return !knownType;
}

void Launch::bindBuffer(unsigned index, HostArray& array, const std::string& origin) {
  buffers_[index] = {&array, nullptr, 0, array.dtype, origin};
}

void Launch::bindBuffer(unsigned index, HostArray& array, uint64_t offset, bool raw, const std::string& origin) {
  if (offset > array.bytes.size())
    throw Error("buffer " + std::to_string(index) + " (" + origin + "): offset " + std::to_string(offset) +
                " is past the end of its allocation (" + std::to_string(array.bytes.size()) + " bytes)");
  Binding b{&array, nullptr, 0, array.dtype, origin};
  b.offset = offset;
  b.raw = raw;
  buffers_[index] = b;
}

void Launch::bindMemory(unsigned index, void* address, uint64_t bytes, DType dtype,
                        const std::string& origin, const void* regionBegin, uint64_t regionBytes,
                        bool uninitialized, bool raw) {
  buffers_[index] = {nullptr, address, bytes, dtype, origin, regionBegin, regionBytes, uninitialized};
  buffers_[index].raw = raw;
}

void Launch::bindBufferSpecs(const std::map<unsigned, std::string>& specs, std::map<unsigned, HostArray>& storage,
                             const std::string& baseDir, const std::string& what) {
  std::map<unsigned, BufferView> views = readBufferSpecs(specs, storage, baseDir, what);
  for (auto& [index, spec] : specs)
    if (!views.count(index)) bindBuffer(index, storage[index], spec);
  for (auto& [index, view] : views) {
    HostArray& allocation = storage[view.allocation];
    bool raw = allocation.dtype == DType::UInt8;
    std::string of = "buffer " + std::to_string(view.allocation);
    bindBuffer(index, allocation, view.offset, raw, of + " at byte " + std::to_string(view.offset));
    if (raw) bindBuffer(view.allocation, allocation, 0, true, of);  // the allocation is untyped too
  }
}

void Launch::setThreadgroupMemory(unsigned index, uint64_t bytes) { threadgroupMemory_[index] = bytes; }

DispatchResult Launch::run(DispatchMode mode, Size3 grid, Size3 threadgroup, const DispatchOptions& options) {
  const KernelInfo& info = kernel_->info;
  auto argLabel = [&](const ArgumentInfo& a) {
    return std::string(a.role == ArgumentRole::Buffer ? "buffer " : "threadgroup memory ") +
           std::to_string(a.binding) + " (argument '" + a.name + "' of kernel '" + info.name +
           "', " + a.typeSpelling + ")";
  };
  for (auto& [index, binding] : buffers_)
    if (!info.bufferArgument(index))
      throw Error("kernel '" + info.name + "' has no [[buffer(" + std::to_string(index) +
                       ")]] argument (bound to " + binding.origin + ")");
  for (auto& [index, bytes] : threadgroupMemory_)
    if (!info.threadgroupArgument(index))
      throw Error("kernel '" + info.name + "' has no [[threadgroup(" + std::to_string(index) +
                       ")]] argument");

  DispatchRequest request;
  request.kernel = kernel_;
  request.mode = mode;
  request.grid = grid;
  request.threadgroup = threadgroup;
  request.options = options;
  request.arguments.resize(info.arguments.size());
  for (const ArgumentInfo& a : info.arguments) {
    BoundArgument& bound = request.arguments[a.position];
    if (a.role == ArgumentRole::Buffer) {
      auto it = buffers_.find(a.binding);
      if (!a.enabled && (it == buffers_.end() || info.bufferArgument(a.binding) != &a))
        continue;  // disabled by its function constant: passed as null (an enabled argument's binding is not its)
      if (it == buffers_.end() && !a.used) continue;  // never read: passed as null, as on Metal
      if (it == buffers_.end()) throw Error(argLabel(a) + " is not bound");
      Binding& binding = it->second;
      if (binding.array) {
        HostArray& array = *binding.array;
        if (array.dtype == DType::UInt16 && (a.pointeeType == "bfloat" || a.pointeeType == "bfloat16_t"))
          array.dtype = DType::BFloat16;  // .npy stores bfloat16 as <u2 bit patterns
        // A kernel may be handed an empty buffer; give it a valid address all the same.
        if (array.bytes.capacity() == 0) array.bytes.reserve(16);
        binding.address = array.bytes.data() + binding.offset;
        binding.bytes = array.bytes.size() - binding.offset;
        binding.dtype = array.dtype;
        // The allocation, for the bounds check (an offset binding sees all of it, as on Metal).
        binding.regionBegin = array.bytes.data();
        binding.regionBytes = array.bytes.size();
      }
      if (!binding.raw && !dtypeMatchesElementType(binding.dtype, a.pointeeType))
        throw Error(argLabel(a) + ": " + binding.origin + " holds " + dtypeName(binding.dtype) +
                         " data, which does not match element type '" + a.pointeeType + "'");
      // A reference must have its object; a pointer may be handed an empty buffer (Metal allows
      // it, and MLX binds empty shape vectors its kernels do not read), any read being past the end.
      if (a.isReference && a.pointeeSize && binding.bytes < a.pointeeSize)
        throw Error(argLabel(a) + ": " + binding.origin + " has " + std::to_string(binding.bytes) +
                         " bytes, less than one '" + a.pointeeType + "' (" +
                         std::to_string(a.pointeeSize) + " bytes)");
      bound.buffer = binding.address;
      bound.regionBegin = binding.regionBegin ? binding.regionBegin : binding.address;
      bound.regionBytes = binding.regionBegin ? binding.regionBytes : binding.bytes;
      bound.uninitialized = binding.uninitialized;
    } else if (a.role == ArgumentRole::ThreadgroupMemory) {
      auto it = threadgroupMemory_.find(a.binding);
      // Never set is a mistake of the caller; set to 0 is legal, as in Metal.
      if (it == threadgroupMemory_.end())
        throw Error(argLabel(a) + " has no size: set the threadgroup memory length");
      bound.threadgroupBytes = it->second;
    }
  }
  DispatchResult result = dispatch(request);
  if (options.suppressions)
    result.findings.erase(std::remove_if(result.findings.begin(), result.findings.end(),
                                         [&](const Finding& f) { return options.suppressions->suppresses(info.name, f); }),
                          result.findings.end());
  return result;
}

}  // namespace mslsim
