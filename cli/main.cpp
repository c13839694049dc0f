// mslsim: the command-line front door. It only translates flags into runtime calls and prints.
// Exit status: 0 success, 1 the kernel ran and a check found an error, 2 usage/I/O/compile error.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <thread>
#include <mutex>
#include <condition_variable>
#include <chrono>
#include <cstdio>
#include <fnmatch.h>
#include <map>
#include <set>
#include <regex>

#include <mslsim/mslsim.h>

#include "MlxSpecFile.h"
#include "Program.h"
#include "TieredKernel.h"
#include "Report.h"
#include "SuiteCase.h"

namespace {

using namespace mslsim;

constexpr int kExitFinding = 1;
constexpr int kExitUsage = 2;

// Milliseconds of CPU time on a POSIX CPU-time clock (the process's, a thread's).
double cpuMilliseconds(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return 0;
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

Size3 parseSize3(const std::string& text, const char* flag) {
  Size3 s{1, 1, 1};
  size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    try {
      size_t used = 0;
      long v = std::stol(part, &used);
      if (used != part.size() || v < 0 || v > 0xFFFFFFFFL) throw std::invalid_argument(part);
      s[d] = uint32_t(v);
    } catch (...) {
      throw Error(fmt::format("{} '{}': expected X[,Y[,Z]] with non-negative integers", flag, text));
    }
    if (comma == std::string::npos) return s;
    start = comma + 1;
  }
  throw Error(fmt::format("{} '{}': at most three dimensions", flag, text));
}

// A count or size: decimal digits only (std::stoull would take "-5" as 2^64-5).
uint64_t parseUnsigned(const std::string& text, const std::string& what) {
  uint64_t value = 0;
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("{} '{}' must be a non-negative integer", what, text));
  try {
    value = std::stoull(text);
  } catch (const std::out_of_range&) {
    throw Error(fmt::format("{} '{}' is too large", what, text));
  }
  return value;
}

std::pair<unsigned, std::string> parseIndexed(const std::string& text, const char* flag) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(fmt::format("{} '{}': expected INDEX=VALUE", flag, text));
  std::string index = text.substr(0, eq);
  if (index.size() > 9 || index.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("{} '{}': INDEX must be a non-negative integer below 10^9", flag, text));
  return {unsigned(std::stoul(index)), text.substr(eq + 1)};
}

void printWarnings(const Program& program) {
  for (auto& d : program.warnings()) fmt::print(stderr, "{}\n", formatDiagnostic(d));
}

struct RunOptions {
  std::string file, kernel, grid, threadgroup, dispatch = "threads";
  std::vector<std::string> buffers, threadgroupMemory, outputs, includes, defines, constants;
  double timeout = 60;
  unsigned repeat = 1;
  bool timing = false;
  bool printSource = false;
  std::string checks = "bounds,sync";
  bool reportUniformWrites = false;
  std::string reportJson, reportSarif;
  std::string schedule = "in-order";
  std::string simdLanes = "vector";
  std::string tier = "optimised";
  std::string watch, trace;
  unsigned maxErrors = 0;
  unsigned workers = 0;
  int errorExitCode = 1;
  std::string suppressions;
};

// After a run with --suppressions: how many findings the file set aside, and its rules that
// matched nothing (a fixed bug's rule, or one that no longer says what it meant).
void printSuppressionSummary(const std::string& path, const Suppressions* suppressions) {
  if (!suppressions) return;
  for (const std::string& line : suppressions->summary(path)) fmt::print(stderr, "mslsim: {}\n", line);
}

void writeText(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot write file");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

// `mslsim run SPEC.json`: an MLX-style kernel (body + names) described in JSON.
int runSpecCommand(const RunOptions& o) {
  auto spec = mlx::loadSpecFile(o.file);
  mlx::MetalKernel kernel(spec->kernel);
  spec->call.timeoutSeconds = o.timeout;
  spec->call.checks = parseCheckList(o.checks);
  spec->call.workers = o.workers;
  spec->call.reportFindings = o.errorExitCode == 0;  // report only: the outputs are written as well
  if (!o.suppressions.empty()) spec->call.suppressions = Suppressions::fromFile(o.suppressions);
  if (o.printSource) {
    fmt::print("{}", kernel.generate(spec->call).source);
    return 0;
  }
  try {
    for (auto& note : kernel.generate(spec->call).notes) fmt::print(stderr, "mslsim: note: {}\n", note);
    auto start = std::chrono::steady_clock::now();
    std::vector<HostArray> outputs = kernel(spec->call);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (spec->outputPaths.size() > outputs.size())
      throw Error(fmt::format("'outputs' names {} files but the kernel has {} outputs",
                                   spec->outputPaths.size(), outputs.size()));
    for (size_t i = 0; i < spec->outputPaths.size(); ++i) writeNpy(spec->outputPaths[i], outputs[i]);
    if (o.timing) fmt::print(stderr, "timing: compile_and_dispatch_ms={:.3f}\n", ms);
    printSuppressionSummary(o.suppressions, spec->call.suppressions.get());
  } catch (const mlx::KernelError& e) {
    fmt::print(stderr, "{}", e.what());
    printSuppressionSummary(o.suppressions, spec->call.suppressions.get());
    return o.errorExitCode;
  } catch (const std::invalid_argument& e) {  // MLX's ValueError
    fmt::print(stderr, "mslsim: {}\n", e.what());
    return kExitUsage;
  } catch (const mlx::RuntimeError& e) {
    fmt::print(stderr, "mslsim: {}\n", e.what());
    return kExitUsage;
  }
  return 0;
}

// --constant N=VALUE ...: values of [[function_constant(N)]] variables (true/false for bools).
std::map<unsigned, double> parseConstants(const std::vector<std::string>& constants) {
  std::map<unsigned, double> values;
  for (auto& c : constants) {
    auto [index, text] = parseIndexed(c, "--constant");
    if (text == "true") {
      values[index] = 1;
    } else if (text == "false") {
      values[index] = 0;
    } else {
      try {
        size_t used = 0;
        values[index] = std::stod(text, &used);
        if (used != text.size()) throw std::invalid_argument(text);
      } catch (const std::logic_error&) {
        throw Error("--constant " + c + ": VALUE must be a number, true or false");
      }
    }
  }
  return values;
}

// One live line on stderr, on a terminal only, for work that lasts more than half a second: the
// phase and how long it has taken, and for a dispatch the threadgroups done of the total, their
// rate and the time left. A thread redraws it five times a second; it is erased when done, so
// the reports that follow start on a clean line.
class ProgressLine {
 public:
  // --progress forces the line on (a pipe then gets the redraws too), --quiet off.
  static inline int forced = 0;  // 1 --progress, -1 --quiet
  ProgressLine() : enabled_(forced > 0 || (forced == 0 && isatty(2) && !std::getenv("MSLSIM_NO_PROGRESS"))) {
    if (enabled_) ticker_ = std::thread([this] { tick(); });
  }
  ~ProgressLine() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    clear();
  }
  // A phase that only adds detail to the one before ("FILE: generating code for 40 kernels: 3 of
  // 40 done" after "FILE: generating code for 40 kernels") keeps its start time.
  void phase(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (base_.empty() || text.compare(0, base_.size(), base_) != 0) {
      base_ = text;
      phaseStart_ = Clock::now();
    }
    phase_ = text;
    done_ = total_ = findings_ = 0;
  }
  void dispatch(uint64_t done, uint64_t total, uint64_t findings) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = done;
    total_ = total;
    findings_ = findings;
  }
  // Whether the line is drawn at all: a dispatch without it does not report its progress.
  bool enabled() const { return enabled_; }
  // CPU time the redrawing thread has used so far (0 when the line is off): with the waiting
  // thread's, what the line costs (`--timing`, measured by bench/run.py --progress-only).
  double tickerCpuMilliseconds() {
    clockid_t clock;
    if (!ticker_.joinable() || pthread_getcpuclockid(ticker_.native_handle(), &clock) != 0) return 0;
    return cpuMilliseconds(clock);
  }
  // Erases the line (before printing a report).
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_.clear();  // nothing to draw until the next phase
    base_.clear();
    if (shown_) std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  void tick() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stop_; })) {
      double seconds = std::chrono::duration<double>(Clock::now() - phaseStart_).count();
      if (phase_.empty() || seconds < 0.5) continue;
      std::string text = fmt::format("mslsim: {} ({:.1f} s)", phase_, seconds);
      if (total_) {
        double rate = done_ / std::max(seconds, 1e-3);
        text = fmt::format("mslsim: {}: {} of {} threadgroups, {:.0f}/s", phase_, done_, total_, rate);
        if (done_ && done_ < total_) text += fmt::format(", about {:.0f} s left", (total_ - done_) / rate);
        if (findings_) text += fmt::format(", {} finding{} so far", findings_, findings_ == 1 ? "" : "s");
      }
      std::fprintf(stderr, "\r\x1b[K%s", text.c_str());
      std::fflush(stderr);
      shown_ = true;
    }
  }
  const bool enabled_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
  bool stop_ = false, shown_ = false;
  std::string phase_, base_;
  Clock::time_point phaseStart_ = Clock::now();
  uint64_t done_ = 0, total_ = 0, findings_ = 0;
};

int runCommand(const RunOptions& o) {
  if (o.file.size() > 5 && o.file.compare(o.file.size() - 5, 5, ".json") == 0) return runSpecCommand(o);
  if (o.kernel.empty() || o.grid.empty() || o.threadgroup.empty())
    throw Error("run " + o.file + ": --kernel, --grid and --threadgroup are required for a .metal file");
  CompileOptions options{o.includes, o.defines, false, {}};
  options.functionConstants = parseConstants(o.constants);
  options.kernels = std::vector<std::string>{o.kernel};  // code for this kernel only
  CheckSet checks = parseCheckList(o.checks);
  checks.reportUniformWrites = o.reportUniformWrites;
  DispatchOptions dispatchOptions;
  dispatchOptions.timeoutSeconds = o.timeout;
  dispatchOptions.checks = checks;
  dispatchOptions.schedule = parseSchedule(o.schedule);
  dispatchOptions.vectorLanes = o.simdLanes == "vector";
  dispatchOptions.watch = o.watch;
  if (!o.suppressions.empty()) dispatchOptions.suppressions = Suppressions::fromFile(o.suppressions);
  dispatchOptions.traceFile = o.trace;
  dispatchOptions.maxErrors = o.maxErrors;
  dispatchOptions.workers = o.workers;
  dispatchOptions.log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  TierPolicy tiers = parseTierPolicy(o.tier, "--tier");
  Size3 grid = parseSize3(o.grid, "--grid"), threadgroup = parseSize3(o.threadgroup, "--threadgroup");
  ProgressLine progress;
  std::shared_ptr<const Program> program;
  {
    CompilePhases phases([&](const std::string& phase) { progress.phase(o.file + ": " + phase); });
    // Adaptive, with the dispatch known: the quick code unless the dispatch is large enough to
    // pay for the optimised code at once (the rule TieredKernel applies to a program's dispatches).
    uint64_t threads = uint64_t(grid[0]) * grid[1] * grid[2];
    if (o.dispatch == "threadgroups") threads *= uint64_t(threadgroup[0]) * threadgroup[1] * threadgroup[2];
    CodeTier tier = tiers == TierPolicy::Quick ||
                            (tiers == TierPolicy::Adaptive && threads < TieredKernel::kOptimiseAtOnceThreads)
                        ? CodeTier::Quick
                        : CodeTier::Optimised;
    // The dispatch's options are known: the one build its code needs.
    program = Program::compileFile(o.file, options, checks.needsInstrumentation(), tier,
                                   codePathsFor(dispatchOptions, checks.needsInstrumentation()));
  }
  progress.clear();
  printWarnings(*program);
  const ExecutableKernel& kernel = program->kernel(o.kernel);
  if (o.dispatch != "threads" && o.dispatch != "threadgroups")
    throw Error("--dispatch '" + o.dispatch + "': expected threads or threadgroups");

  // Buffers are allocations bound at offsets, as in Metal (Launch::bindBufferSpecs).
  std::map<unsigned, HostArray> buffers;
  std::map<unsigned, std::string> specs;
  Launch launch(kernel);
  for (auto& b : o.buffers) {
    auto [index, spec] = parseIndexed(b, "--buffer");
    if (!specs.emplace(index, spec).second) throw Error(fmt::format("--buffer {} is given twice", index));
  }
  launch.bindBufferSpecs(specs, buffers, "", "--buffer");
  for (auto& t : o.threadgroupMemory) {
    auto [index, bytes] = parseIndexed(t, "--threadgroup-memory");
    launch.setThreadgroupMemory(index, parseUnsigned(bytes, "--threadgroup-memory " + t + ": BYTES"));
  }
  std::vector<std::pair<unsigned, std::string>> outputs;
  for (auto& out : o.outputs) {
    auto [index, path] = parseIndexed(out, "--output");
    if (specs.count(index) && !specs[index].empty() && specs[index][0] == '@')
      throw Error(fmt::format("--output {}: buffer {} is a view of buffer {}; write that allocation (--output {}=PATH)",
                              out, index, specs[index].substr(1, specs[index].find('+') - 1),
                              specs[index].substr(1, specs[index].find('+') - 1)));
    if (!buffers.count(index))
      throw Error(fmt::format("--output {}: buffer {} is not bound (add --buffer {}=SPEC)", out, index, index));
    outputs.push_back({index, path});
  }
  if (o.repeat == 0) throw Error("--repeat must be at least 1");

  // Repeated dispatches start from the same inputs; outputs come from the last one.
  std::map<unsigned, HostArray> initial = buffers;
  std::vector<double> times;
  DispatchResult result;
  // CPU time over the dispatches: the whole process's (the workers), the waiting thread's (the
  // watchdog and the progress calls, DispatchResult::waitingCpuMilliseconds) and the line's
  // redrawing thread's.
  double processCpu = cpuMilliseconds(CLOCK_PROCESS_CPUTIME_ID), waitingCpu = 0,
         tickerCpu = progress.tickerCpuMilliseconds();
  for (unsigned r = 0; r < o.repeat; ++r) {
    if (r > 0)
      for (auto& [index, array] : buffers) array.bytes = initial[index].bytes;
    progress.phase("dispatching " + o.kernel);
    if (progress.enabled())
      dispatchOptions.progress = [&](uint64_t done, uint64_t total, uint64_t findings) {
        progress.dispatch(done, total, findings);
      };
    result = launch.run(o.dispatch == "threads" ? DispatchMode::Threads : DispatchMode::Threadgroups,
                        grid, threadgroup, dispatchOptions);
    times.push_back(result.milliseconds);
    waitingCpu += result.waitingCpuMilliseconds;
    if (result.hasErrors()) break;
  }
  processCpu = cpuMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - processCpu;
  tickerCpu = progress.tickerCpuMilliseconds() - tickerCpu;
  progress.clear();
  for (auto& f : result.findings) fmt::print(stderr, "{}\n", program->formatFinding(f));
  if (!o.reportJson.empty()) writeText(o.reportJson, findingsToJson(kernel.info.name, result.findings));
  if (!o.reportSarif.empty()) writeText(o.reportSarif, findingsToSarif({{kernel.info.name, result.findings}}));
  for (auto& [index, path] : outputs) writeNpy(path, buffers[index]);
  printSuppressionSummary(o.suppressions, dispatchOptions.suppressions.get());
  if (o.timing) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    fmt::print(stderr,
               "timing: compile_ms={:.3f} dispatch_ms_median={:.3f} dispatch_ms_min={:.3f} repeats={} "
               "dispatch_cpu_ms={:.3f} waiting_cpu_ms={:.3f} progress_cpu_ms={:.3f} path=\"{}\" tier={} cached={}\n",
               program->compileMilliseconds(), sorted[sorted.size() / 2], sorted.front(), times.size(), processCpu,
               waitingCpu, tickerCpu, result.path, codeTierName(kernel.tier), program->fromDiskCache() ? "yes" : "no");
  }
  if (result.refused) return kExitUsage;  // nothing ran: not a finding in a kernel
  return result.hasErrors() ? o.errorExitCode : 0;
}

const char* spaceName(AddressSpace s) {
  switch (s) {
    case AddressSpace::Device: return "device";
    case AddressSpace::Constant: return "constant";
    case AddressSpace::Threadgroup: return "threadgroup";
    case AddressSpace::Thread: return "thread";
  }
  return "?";
}

void printKernel(const KernelInfo& info, const ExecutableKernel* generated) {
  fmt::print("kernel {}  ({}:{}:{})\n", info.name, info.location.file, info.location.line, info.location.column);
  if (info.maxTotalThreadsPerThreadgroup)
    fmt::print("  max_total_threads_per_threadgroup: {}\n", info.maxTotalThreadsPerThreadgroup);
  for (auto& a : info.arguments) {
    std::string binding, role;
    switch (a.role) {
      case ArgumentRole::Buffer:
        binding = fmt::format("buffer({}){}", a.binding, a.explicitBinding ? "" : " implicit");
        role = a.isConst ? "input" : "input/output";
        if (!a.functionConstant.empty())
          role += a.enabled ? fmt::format(", enabled by {}", a.functionConstant)
                            : fmt::format(", absent: {} is false (need not be bound)", a.functionConstant);
        break;
      case ArgumentRole::ThreadgroupMemory:
        binding = fmt::format("threadgroup({})", a.binding);
        role = "threadgroup memory, sized at dispatch";
        break;
      case ArgumentRole::Builtin:
        binding = builtinName(a.builtin);
        role = "built-in";
        break;
    }
    std::string size = a.role == ArgumentRole::Builtin
                           ? fmt::format("{} bytes", a.components * a.componentSize)
                       : a.pointeeSize ? fmt::format("element {} bytes", a.pointeeSize)
                                       : std::string("element size unknown");
    fmt::print("  {:<32} {:<12} {:<11} {:<28} {}; {}\n", binding, a.name, spaceName(a.space),
               a.typeSpelling, size, role);
  }
  if (generated && generated->staticThreadgroupBytes)
    fmt::print("  threadgroup variables: {} bytes\n", generated->staticThreadgroupBytes);
}

// `mslsim compile`: parses and checks the whole file and lists its kernels and function constants
// without generating code (a library of thousands of kernels lists in seconds). With --kernel,
// only the matching kernels are listed, and they are compiled to native code too.
int compileCommand(const std::string& file, const std::vector<std::string>& includes,
                   const std::vector<std::string>& defines, const std::vector<std::string>& constants,
                   const std::vector<std::string>& patterns, const std::string& checks, const std::string& tierName,
                   bool emitLlvm) {
  TierPolicy tiers = parseTierPolicy(tierName, "--tier");
  if (tiers == TierPolicy::Adaptive) throw Error("--tier: compile makes code at one tier: optimised or quick");
  CodeTier tier = tiers == TierPolicy::Quick ? CodeTier::Quick : CodeTier::Optimised;
  CompileOptions options{includes, defines, false, {}};
  options.functionConstants = parseConstants(constants);
  std::string source = readTextFile(file);
  auto matches = [&](const std::string& name) {
    if (patterns.empty()) return true;
    for (auto& p : patterns)
      if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
    return false;
  };
  CompileOptions listing = options;
  listing.kernels = std::vector<std::string>{};
  if (emitLlvm) listing.kernels.reset();
  ProgressLine progress;
  progress.phase(file + ": parsing");
  CompileResult r = compileMsl(file, source, listing);
  progress.clear();
  for (auto& d : r.diagnostics) fmt::print(stderr, "{}\n", formatDiagnostic(d));
  if (!r.ok) return kExitUsage;
  if (emitLlvm) {
    fmt::print("{}", printModule(r.program));
    return 0;
  }
  std::vector<const KernelInfo*> chosen;
  for (auto& k : r.declaredKernels)
    if (matches(k.name)) chosen.push_back(&k);
  if (!patterns.empty() && chosen.empty())
    throw Error(file + ": no kernel matches --kernel " + patterns.front() + " (of " +
                std::to_string(r.declaredKernels.size()) + " kernels)");
  std::shared_ptr<const Program> program;
  if (!patterns.empty()) {
    // Every kernel chosen: one entry for the whole file, which later runs of any kernel use.
    if (chosen.size() < r.declaredKernels.size()) {
      options.kernels = std::vector<std::string>{};
      for (auto* k : chosen) options.kernels->push_back(k->name);
    }
    CompilePhases phases([&](const std::string& phase) { progress.phase(file + ": " + phase); });
    program = Program::compileSource(file, source, options, parseCheckList(checks).needsInstrumentation(), tier);
  }
  progress.phase("");
  progress.clear();
  for (auto* k : chosen) printKernel(*k, program ? &program->kernel(k->name) : nullptr);
  if (!r.functionConstants.empty()) {
    fmt::print("function constants ({}; set with --constant INDEX=VALUE):\n", r.functionConstants.size());
    for (auto& c : r.functionConstants) {
      auto set = options.functionConstants.find(c.index);
      fmt::print("  {:<6} {:<32} {:<8} {}\n", c.index, c.name, c.type,
                 set == options.functionConstants.end() ? std::string("not set")
                                                        : fmt::format("= {}", set->second));
    }
  }
  if (patterns.empty() && r.declaredKernels.size() > 1)
    fmt::print("{} kernels\n", r.declaredKernels.size());
  return 0;
}

int suiteCommand(const std::vector<std::string>& cases, const std::string& dataDir, const std::string& checks,
                 const std::string& schedule, unsigned workers) {
  unsigned passed = 0, refused = 0;
  auto start = std::chrono::steady_clock::now();
  fmt::print("{:<4} {:<28} {:<26} {:<40} {:>12}  {}\n", "", "case", "kernel", "dispatch", "run time",
             "result check");
  ProgressLine progress;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string& c = cases[i];
    std::string label = fmt::format("case {} of {} ({})", i + 1, cases.size(), c);
    progress.phase(label);
    CompilePhases phases([&](const std::string& phase) { progress.phase(label + ": " + phase); });
    CaseOutcome o = runCase(c, dataDir, checks, schedule, workers);
    progress.clear();
    fmt::print("{} {:<28} {:<26} {:<40} {:>9.1f} ms  {}\n", o.passed ? "PASS" : "FAIL", o.name,
               o.kernel, o.dispatch, o.runMs, o.check);
    for (auto& d : o.details) fmt::print("     {}\n", d);
    passed += o.passed;
    refused += !o.ran;
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("{} of {} kernels match their reference ({:.1f} s including compilation)\n", passed,
             cases.size(), total);
  // A case that could not run (its file, JSON, buffers or kernel refused) is a usage error.
  if (refused) return kExitUsage;
  return passed == cases.size() ? 0 : kExitFinding;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mslsim: run Metal Shading Language compute kernels on Linux"};
  app.set_version_flag("--version", versionText(), "print the version, the commit and LLVM's version, and exit");
  app.require_subcommand(1);
  app.fallthrough();  // --progress and --quiet also after the subcommand
  bool forceProgress = false, quiet = false;
  app.add_flag("--progress", forceProgress, "show the live progress line on stderr even when it is not a terminal")
      ->group("Progress");
  app.add_flag("--quiet", quiet, "no progress line, even on a terminal")->group("Progress");

  RunOptions run;
  auto* runCmd = app.add_subcommand("run", "compile a .metal file and dispatch one kernel, or run an MLX-style SPEC.json");
  runCmd->add_option("file", run.file, "the .metal file, or an MLX-style kernel SPEC.json")->required();
  runCmd->add_option("--kernel", run.kernel, "kernel (host) name (required for .metal)");
  runCmd->add_option("--grid", run.grid, "X[,Y[,Z]]: threads (or threadgroups with --dispatch threadgroups)");
  runCmd->add_option("--threadgroup", run.threadgroup, "X[,Y[,Z]] threads per threadgroup");
  runCmd->add_option("--check", run.checks,
                     "checks: races,bounds,uninit,sync,simd,align | all | none (default bounds,sync; align is not in all)");
  runCmd->add_option("--schedule", run.schedule,
                     "in-order | reverse | random[:SEED]: the order threads run between synchronisation points");
  runCmd->add_option("--simd-lanes", run.simdLanes,
                     "vector (default) | threads: kernels with barriers or SIMD-group functions run each "
                     "SIMD-group's lanes as vector lanes (unchecked or default checks, in-order), or every thread on its own")
      ->check(CLI::IsMember({"vector", "threads"}));
  runCmd->add_option("--tier", run.tier,
                     "optimised (default) | quick: code made in a fraction of the time, which runs slower | adaptive: "
                     "quick unless the dispatch is large (the Metal API's default)");
  runCmd->add_option("--watch", run.watch, "print every access to one element: NAME[INDEX] or buffer:N[INDEX]");
  runCmd->add_option("--trace", run.trace, "write a Chrome trace-event JSON (open it in Perfetto)");
  runCmd->add_option("--max-errors", run.maxErrors, "stop after N distinct errors");
  runCmd->add_option("--report-json", run.reportJson, "write the findings as JSON (schema in docs/checks.md)");
  runCmd->add_option("--report-sarif", run.reportSarif, "write the findings as SARIF 2.1.0");
  runCmd->add_option("--suppressions", run.suppressions,
                     "a file of findings to set aside, one rule a line: KIND [kernel=GLOB] [at=FILE[:LINE]]  # why "
                     "(docs/checks.md)");
  runCmd->add_option("--error-exitcode", run.errorExitCode, "exit status when an error is found (default 1; 0: report only)")
      ->check(CLI::Range(0, 255));
  runCmd->add_flag("--report-uniform-writes", run.reportUniformWrites,
                   "also report write-write races that store the same value");
  runCmd->add_flag("--print-source", run.printSource, "SPEC.json: print the source MLX would generate, and stop");
  runCmd->add_option("--dispatch", run.dispatch, "threads (default: grid counts threads) | threadgroups");
  runCmd->add_option("--buffer", run.buffers,
                     "INDEX=SPEC with SPEC path.npy | zeros:DTYPE:COUNT | fill:DTYPE:COUNT:VALUE | "
                     "scalar:DTYPE:VALUE | iota:DTYPE:COUNT | @J[+BYTES] (buffer J's allocation, at a byte offset)");
  runCmd->add_option("--threadgroup-memory", run.threadgroupMemory, "INDEX=BYTES for [[threadgroup(n)]] arguments");
  runCmd->add_option("--output", run.outputs, "INDEX=path.npy: write the buffer's final contents");
  runCmd->add_option("-I", run.includes, "add an include directory");
  runCmd->add_option("-D", run.defines, "define a macro NAME[=VALUE]");
  runCmd->add_option("--constant", run.constants, "N=VALUE: the value of [[function_constant(N)]] (a number, true, false)");
  runCmd->add_option("--timeout", run.timeout, "seconds per dispatch before the kernel is stopped (default 60)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double v = std::strtod(text.c_str(), nullptr);
            return v > 0 && std::isfinite(v) ? "" : "the time limit must be a finite number of seconds above zero";
          },
          "SECONDS"));
  runCmd->add_option("--repeat", run.repeat, "dispatch N times (outputs from the last)");
  runCmd->add_flag("--timing", run.timing, "print compile and dispatch times to stderr");
  runCmd->add_option("--workers", run.workers,
                     "threads running threadgroups in parallel (default: one per core; with races or uninit "
                     "checked, one, so that reports name the same threads every run)")
      ->check(CLI::Range(1u, 1024u));

  std::string compileFile;
  std::vector<std::string> compileIncludes, compileDefines, compileConstants;
  bool emitLlvm = false;
  auto* compileCmd = app.add_subcommand("compile", "compile a .metal file and list its kernels and arguments");
  compileCmd->add_option("file", compileFile, "the .metal file")->required();
  compileCmd->add_option("-I", compileIncludes, "add an include directory");
  compileCmd->add_option("-D", compileDefines, "define a macro NAME[=VALUE]");
  compileCmd->add_option("--constant", compileConstants, "N=VALUE: the value of [[function_constant(N)]]");
  std::vector<std::string> compileKernels;
  compileCmd->add_option("--kernel", compileKernels,
                         "list only kernels whose name matches (a name or a glob such as 'vv_Add*'); they are "
                         "compiled to native code too");
  std::string compileChecks = "bounds,sync";
  compileCmd->add_option("--check", compileChecks,
                         "with --kernel: build the code `run --check` with these checks uses (default bounds,sync)");
  std::string compileTier = "optimised";
  compileCmd->add_option("--tier", compileTier,
                         "with --kernel: the code `run --tier` makes: optimised (default) | quick");
  compileCmd->add_flag("--emit-llvm", emitLlvm, "print the LLVM IR the front end produces");

  std::vector<std::string> cases;
  std::string dataDir;
  auto* suiteCmd = app.add_subcommand("suite", "run kernel test cases (case.json) and compare with their references");
  suiteCmd->add_option("cases", cases, "case.json files")->required();
  std::string suiteChecks, suiteSchedule = "in-order";
  suiteCmd->add_option("--schedule", suiteSchedule, "in-order | reverse | random[:SEED]");
  suiteCmd->add_option("--check", suiteChecks, "override the cases' checks (e.g. all)");
  suiteCmd->add_option("--data", dataDir, "directory with the cases' .npy files (default: each case's directory)");
  unsigned suiteWorkers = 0;
  suiteCmd->add_option("--workers", suiteWorkers, "as for run")->check(CLI::Range(1u, 1024u));

  // CLI11 says "A subcommand is required" of a misspelt one: name it, and the ones there are.
  if (argc > 1 && argv[1][0] != '-') {
    std::string word = argv[1], names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == word;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      fmt::print(stderr, "mslsim: unknown subcommand '{}' (the subcommands: {}; mslsim --help)\n", word, names);
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  if (forceProgress && quiet) {
    fmt::print(stderr, "mslsim: --progress and --quiet contradict each other\n");
    return kExitUsage;
  }
  ProgressLine::forced = forceProgress ? 1 : quiet ? -1 : 0;
  try {
    // What a SPEC.json says itself (kernel, sizes, inputs, outputs) or what its run does not do:
    // refused rather than ignored.
    if (*runCmd && run.file.size() > 5 && run.file.compare(run.file.size() - 5, 5, ".json") == 0)
      for (const char* name : {"--kernel", "--grid", "--threadgroup", "--buffer", "--output", "--threadgroup-memory",
                               "--constant", "-I", "-D", "--dispatch", "--schedule", "--simd-lanes", "--tier",
                               "--watch", "--trace", "--max-errors", "--report-json", "--report-sarif",
                               "--report-uniform-writes", "--repeat"})
        if (runCmd->get_option(name)->count() > 0)
          throw Error("run " + run.file + ": " + name +
                      " is not taken with a SPEC.json (the file gives the kernel, its sizes, inputs and outputs; "
                      "a SPEC.json run takes --check, --workers, --timeout, --timing, --print-source, --suppressions, "
                      "--error-exitcode)");
    if (*runCmd) return runCommand(run);
    if (*compileCmd) return compileCommand(compileFile, compileIncludes, compileDefines, compileConstants, compileKernels, compileChecks, compileTier, emitLlvm);
    if (*suiteCmd) return suiteCommand(cases, dataDir, suiteChecks, suiteSchedule, suiteWorkers);
  } catch (const CompileFailed& e) {
    for (auto& d : e.diagnostics()) fmt::print(stderr, "{}\n", formatDiagnostic(d));
    return kExitUsage;
  } catch (const Error& e) {
    fmt::print(stderr, "mslsim: {}\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "mslsim: internal error: {}\n", e.what());
    return kExitUsage;
  }
  return kExitUsage;
}
