// A dispatch as a whole: its arguments checked, the workers that take threadgroups in the
// schedule's order (each with its own ThreadgroupScheduler), the wait with progress, timeout and
// deadlock diagnosis, and the findings merged in dispatch order.
#include "ThreadgroupScheduler.h"

#include <time.h>

#include <fstream>

#include "StagedBuffers.h"

namespace mslsim {
namespace execution {
namespace {

std::atomic<int> gCancelledDispatches{0};

// The n-th threadgroup to run under `schedule`: a bijection on [0, total).
uint64_t threadgroupInOrder(const Schedule& schedule, uint64_t n, uint64_t total) {
  switch (schedule.order) {
    case Schedule::Order::InOrder: return n;
    case Schedule::Order::Reverse: return total - 1 - n;
    case Schedule::Order::Random: {
      // An affine permutation x -> (a*x + c) mod total with a coprime to total.
      uint64_t a = (schedule.seed * 0x9E3779B97F4A7C15ull) % total | 1;
      while (std::gcd(a, total) != 1) a += 2;
      uint64_t c = (schedule.seed ^ 0x5851F42D4C957F2Dull) % total;
      return uint64_t((unsigned __int128)(a % total) * n % total + c) % total;
    }
  }
  return n;
}

void workerMain(DispatchState& state) {
  tDispatch = &state;
  {
    pthread_attr_t attr;
    void* low = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &low, &size);
      pthread_attr_destroy(&attr);
    }
    tStackLow = reinterpret_cast<uintptr_t>(low);
  }
  AlternateSignalStack signalStack;
  std::vector<std::unique_ptr<FiberStack>> stacks;
  ThreadgroupScheduler scheduler(state, stacks);
  auto observers = makeCheckers(state.facts, state.checkState);
  if (state.request.options.trackWriters)
    for (auto& t : makeWriterTrackers(state.facts, state.writerState)) observers.push_back(std::move(t));
  for (auto& t : makeTracers(state.facts, state.request, state.traceState)) {
    state.listen(t.get());
    observers.push_back(std::move(t));
  }
  std::vector<ExecutionObserver*> listening;
  for (auto& o : observers) listening.push_back(o.get());
  // Which code this dispatch runs was chosen from its options before any observer existed
  // (takesVectorLanes): an observer that needs every access but was not foreseen there would not
  // hear of the vector lanes' accesses. Refused rather than run with a check that sees nothing.
  if (state.kernel.simdGroups && runsAsVectorLanes(state.kernel, state.request.options))
    for (auto* o : listening)
      if (o->needsEveryAccess()) {
        tGroupOrder = 0;
        state.report({Finding::Severity::Error, "internal-error",
                      "kernel '" + state.kernel.info.name +
                          "': an observer of this dispatch needs every access, but the dispatch was "
                          "given the vector lanes (takesVectorLanes does not list it)",
                      {}});
        state.stopOrder = 0;
        break;
      }
  scheduler.setObservers(std::move(observers));
  uint64_t total = state.geometry.totalThreadgroups();
  // Threadgroups are taken a run at a time: one shared counter per threadgroup costs more than a
  // small threadgroup's work when the workers contend for it, and a worker that streams through
  // memory does it faster in long runs of its own (an element-wise add over 65,536 threadgroups
  // of 256: 10.3 ms on two workers taking 16 at a time, 7.4 taking 128, 7.3 on one worker).
  // Each worker still gets 64 runs or more, to share the work evenly.
  uint64_t batch = std::clamp<uint64_t>(total / (64 * std::max(1u, state.workers)), 1, 256);
  while (!state.cancelled) {
    uint64_t first = state.nextGroup.fetch_add(batch);
    if (first >= total || state.stops(first)) break;
    for (uint64_t g = first; g < std::min(total, first + batch) && !state.stops(g) && !state.cancelled; ++g) {
      tGroupOrder = g;
      scheduler.run(state.geometry.groupAt(threadgroupInOrder(state.request.options.schedule, g, total)));
      state.groupsDone.fetch_add(1, std::memory_order_relaxed);
    }
  }
  tGroupOrder = ~uint64_t(0) - 1;
  for (auto* o : listening) state.unlisten(o);
  // Done: a worker that spins no longer waits for this one.
  state.activeWorkers.fetch_sub(1);
  state.spinning(&scheduler, std::nullopt);
  tDispatch = nullptr;
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

std::string sizeText(Size3 s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}


}  // namespace
}  // namespace execution

using namespace execution;

namespace {
DispatchResult runDispatch(const DispatchRequest& request, const InactiveLaneFill& inactiveLaneFill);
}

namespace {
// Whether a dispatch with `options` runs a kernel's vector lanes, if it has them.
bool takesVectorLanes(const DispatchOptions& options, bool instrumented) {
  // The observers that need every access (ExecutionObserver::needsEveryAccess): races, uninit and
  // align's checkers, the watch and the writer tracker (checked builds), the trace (any build).
  // Decided here from the options, as a build is chosen before a dispatch's observers exist; each
  // worker checks its observers against it (workerMain).
  bool everyAccess = (instrumented && (options.checks.races || options.checks.uninit || options.checks.align ||
                                       !options.watch.empty() || options.trackWriters)) ||
                     !options.traceFile.empty();
  return options.vectorLanes && options.schedule.order == Schedule::Order::InOrder && !options.checks.simd &&
         !everyAccess;
}
}  // namespace

bool runsAsVectorLanes(const ExecutableKernel& kernel, const DispatchOptions& options) {
  return kernel.simdGroupFunction && takesVectorLanes(options, kernel.instrumented);
}

CodePaths codePathsFor(const DispatchOptions& options, bool checked) {
  return takesVectorLanes(options, checked) ? CodePaths::Default : CodePaths::PerThread;
}

namespace {
DispatchResult dispatchCode(const DispatchRequest& request);
}

DispatchResult dispatch(const DispatchRequest& request) {
  if (request.kernel->perThreadCode || runsAsVectorLanes(*request.kernel, request.options)) return dispatchCode(request);
  // A kernel built for its vector lanes alone, in a dispatch that runs threads one by one.
  DispatchRequest perThread = request;
  try {
    if (!request.kernel->withPerThreadCode) throw std::runtime_error("no per-thread build to make");
    perThread.kernel = &request.kernel->withPerThreadCode();
  } catch (const std::exception& e) {
    DispatchResult refused;
    refused.refused = true;
    refused.findings.push_back({Finding::Severity::Error, "internal-error",
                                "kernel '" + request.kernel->info.name +
                                    "': its per-thread code could not be made: " + e.what(),
                                {}});
    return refused;
  }
  return dispatchCode(perThread);
}

namespace {
DispatchResult dispatchCode(const DispatchRequest& request) {
  // Accesses the bounds check does not see run on buffers staged into guarded memory.
  if (request.kernel->instrumented && request.options.checks.bounds)
    return dispatchSettlingInactiveLaneReads(request, runDispatch);
  auto start = std::chrono::steady_clock::now();
  DispatchRequest staged = request;
  std::optional<StagedBuffers> buffers;
  try {
    buffers.emplace(staged);
  } catch (const std::bad_alloc&) {
    DispatchResult refused;
    refused.refused = true;
    refused.findings.push_back({Finding::Severity::Error, "out-of-memory",
                                "kernel '" + request.kernel->info.name +
                                    "': no memory to stage its buffers into for the run",
                                {}});
    return refused;
  }
  DispatchResult result = dispatchSettlingInactiveLaneReads(staged, runDispatch);
  buffers->copyBack();
  // The copies are part of what the dispatch costs.
  result.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

DispatchResult runDispatch(const DispatchRequest& request, const InactiveLaneFill& inactiveLaneFill) {
  DispatchResult result;
  auto fail = [&](std::string kind, std::string message) {
    result.findings.push_back({Finding::Severity::Error, std::move(kind), std::move(message), {}});
    result.refused = true;
    return result;
  };
  const ExecutableKernel& kernel = *request.kernel;
  const std::string& name = kernel.info.name;
  for (int d = 0; d < 3; ++d)
    if (request.threadgroup[d] == 0)
      return fail("invalid-dispatch", "kernel '" + name + "': threadgroup size " +
                                          sizeText(request.threadgroup) + " has a zero dimension");
  uint64_t tgThreads = uint64_t(request.threadgroup[0]) * request.threadgroup[1] * request.threadgroup[2];
  uint64_t limit = kernel.info.maxTotalThreadsPerThreadgroup ? kernel.info.maxTotalThreadsPerThreadgroup
                                                            : kMaxThreadsPerThreadgroup;
  if (tgThreads > limit)
    return fail("invalid-dispatch", "kernel '" + name + "': threadgroup size " +
                                        sizeText(request.threadgroup) + " has " + std::to_string(tgThreads) +
                                        " threads, more than the maximum of " + std::to_string(limit));
  if (request.arguments.size() != kernel.info.arguments.size())
    return fail("invalid-dispatch", "kernel '" + name + "': wrong number of bound arguments");
  // thread_position_in_grid is a uint per dimension, and the simulator counts threads in 64 bits.
  unsigned __int128 gridThreads = 1;
  for (int d = 0; d < 3; ++d) {
    uint64_t extent = request.mode == DispatchMode::Threads ? request.grid[d]
                                                            : uint64_t(request.grid[d]) * request.threadgroup[d];
    if (extent > 0xFFFFFFFFull)
      return fail("invalid-dispatch", "kernel '" + name + "': " + std::to_string(request.grid[d]) +
                                          " threadgroups of " + std::to_string(request.threadgroup[d]) +
                                          " threads in dimension " + "xyz"[d] + " make " + std::to_string(extent) +
                                          " threads, more than a uint position can count (4294967295)");
    gridThreads *= extent;
  }
  if (gridThreads > ~uint64_t(0))
    return fail("invalid-dispatch", "kernel '" + name + "': the grid " + sizeText(request.grid) +
                                        " has more than 2^64 threads");
  const double timeout = request.options.timeoutSeconds;
  if (!(timeout > 0) || !std::isfinite(timeout))
    return fail("invalid-dispatch", "kernel '" + name + "': the time limit must be a finite number of seconds "
                                    "above zero (it is " + seconds(timeout) + ")");
  if (!request.options.traceFile.empty() && !std::ofstream(request.options.traceFile))
    return fail("invalid-dispatch", "kernel '" + name + "': cannot write the trace file '" +
                                        request.options.traceFile + "' (" + std::strerror(errno) + ")");
  for (auto& a : kernel.info.arguments)
    if (a.role == ArgumentRole::ThreadgroupMemory &&
        request.arguments[a.position].threadgroupBytes > kMaxThreadgroupMemoryBytes)
      return fail("threadgroup-memory-limit",
                  "kernel '" + name + "': threadgroup(" + std::to_string(a.binding) + ") argument '" + a.name +
                      "' is given " + std::to_string(request.arguments[a.position].threadgroupBytes) +
                      " bytes, more than the maximum of " + std::to_string(kMaxThreadgroupMemoryBytes));

  DispatchState state(request);
  state.inactiveLaneFill = inactiveLaneFill;
  // Arena: the kernel's threadgroup variables first, then each [[threadgroup(n)]] argument.
  uint64_t offset = kernel.staticThreadgroupBytes;
  state.threadgroupArgOffsets.assign(kernel.info.arguments.size(), 0);
  for (auto& a : kernel.info.arguments)
    if (a.role == ArgumentRole::Builtin) {
      state.builtinArguments.push_back(a.position);
      if (variesPerThread(a.builtin)) state.varyingBuiltinArguments.push_back(a.position);
    }
  for (auto& a : kernel.info.arguments) {
    if (a.role != ArgumentRole::ThreadgroupMemory) continue;
    // A length of zero is legal (ggml sets it for kernels that declare a threadgroup buffer they
    // do not use); any access to it is out of bounds.
    uint64_t bytes = request.arguments[a.position].threadgroupBytes;
    offset = (offset + 15) / 16 * 16;
    state.threadgroupArgOffsets[a.position] = offset;
    offset += bytes;
  }
  if (offset > kMaxThreadgroupMemoryBytes)
    return fail("threadgroup-memory-limit",
                "kernel '" + name + "' uses " + std::to_string(offset) +
                    " bytes of threadgroup memory (" + std::to_string(kernel.staticThreadgroupBytes) +
                    " in threadgroup variables), more than the maximum of " +
                    std::to_string(kMaxThreadgroupMemoryBytes));
  state.arenaBytes = (offset + 15) / 16 * 16;

  // What the checkers need to know about this dispatch.
  DispatchFacts& facts = state.facts;
  facts.kernel = &kernel;
  facts.geometry = &state.geometry;
  facts.checks = request.options.checks;
  facts.sink = &state;
  facts.log = request.options.log;
  facts.arenaBytes = state.arenaBytes;
  for (auto& a : kernel.info.arguments) {
    const BoundArgument& b = request.arguments[a.position];
    MemoryRegion r;
    r.argument = &a;
    if (a.role == ArgumentRole::Buffer) {
      r.space = a.space == AddressSpace::Constant ? MemoryRegion::Space::Constant : MemoryRegion::Space::Device;
      r.base = reinterpret_cast<uintptr_t>(b.buffer);
      r.begin = b.regionBegin ? reinterpret_cast<uintptr_t>(b.regionBegin) : r.base;
      r.end = r.begin + b.regionBytes;
      r.readOnly = a.isConst;
      r.uninitialized = b.uninitialized;
      facts.buffers.push_back(r);
    } else if (a.role == ArgumentRole::ThreadgroupMemory) {
      r.space = MemoryRegion::Space::Threadgroup;
      r.begin = r.base = state.threadgroupArgOffsets[a.position];
      r.end = r.begin + b.threadgroupBytes;
      facts.threadgroupArguments.push_back(r);
    }
  }
  facts.resolveSiteAllocations();
  if (std::string why = whyChecksCannotRun(facts); !why.empty()) return fail("check-limit", why);

  if (!request.options.watch.empty()) {
    try {
      std::shared_ptr<void> scratch;
      makeTracers(facts, request, scratch);
    } catch (const std::invalid_argument& e) {
      return fail("invalid-watch", e.what());
    }
    if (!kernel.instrumented)
      return fail("invalid-watch", "--watch needs a checked build: do not combine it with --check none");
  }

  installFaultHandlers();
  auto start = std::chrono::steady_clock::now();
  uint64_t total = state.geometry.totalThreadgroups();
  unsigned workers = request.options.workers ? request.options.workers : std::max(1u, std::thread::hardware_concurrency());
  // Race and uninitialised-read checks share their state across threadgroups: they run on one
  // worker unless the caller asks for more, as the threads a race report names (which of two
  // threadgroups came first) then depend on timing. Writer tracking always runs on one.
  bool sharedChecks = kernel.instrumented && (request.options.checks.races || request.options.checks.uninit);
  if ((sharedChecks && !request.options.workers) || (kernel.instrumented && request.options.trackWriters)) workers = 1;
  workers = unsigned(std::min<uint64_t>(workers, std::max<uint64_t>(total, 1)));
  state.workers = workers;
  state.facts.workers = workers;
  prepareCheckers(state.facts, state.checkState);  // before the workers share it

  std::mutex doneMutex;
  std::condition_variable doneCv;
  unsigned running = workers;
  state.activeWorkers = workers;
  std::vector<std::thread> threads;
  auto threadCpu = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
  };
  double waitingStart = threadCpu();
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      workerMain(state);
      std::lock_guard<std::mutex> lock(doneMutex);
      if (--running == 0) doneCv.notify_all();
    });
  {
    std::unique_lock<std::mutex> lock(doneMutex);
    auto deadline = start + std::chrono::duration<double>(request.options.timeoutSeconds);
    // A dispatch still running after a second (or half its time limit) is diagnosed: loops in
    // JIT'd code then call the poll hooks, which look for threads spinning on memory nobody
    // writes (a deadlock, reported at once rather than as a timeout).
    auto diagnoseAt = start + std::chrono::duration<double>(std::min(1.0, request.options.timeoutSeconds / 2));
    bool polling = false;
    auto poll = [&](bool on) {
      if (on == polling) return;
      polling = on;
      if (on ? gCancelledDispatches.fetch_add(1) == 0 : gCancelledDispatches.fetch_sub(1) == 1) cancelFlag() = on;
    };
    // Waits until `until` or the end, telling DispatchOptions::progress every 100 ms.
    const auto& progress = request.options.progress;
    using TimePoint = std::chrono::steady_clock::time_point;
    auto waitUntil = [&](auto untilAny) {
      TimePoint until = std::chrono::time_point_cast<std::chrono::steady_clock::duration>(untilAny);
      for (;;) {
        TimePoint next = progress ? std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)) : until;
        if (doneCv.wait_until(lock, next, [&] { return running == 0; })) return true;
        if (next >= until) return false;
        lock.unlock();
        progress(state.groupsDone.load(std::memory_order_relaxed), total,
                 state.distinctFindings.load(std::memory_order_relaxed));
        lock.lock();
      }
    };
    // Diagnosis makes every loop round call the poll hooks (a third of a long GEMM's time), so it
    // runs in windows: 100 ms of every second. A spinning thread goes round its loop thousands of
    // times in a window; each window starts from no spinning workers, so that a worker marked in
    // an earlier window that has moved on since cannot complete a false deadlock.
    bool done = waitUntil(diagnoseAt);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      state.forgetSpinning();
      state.diagnosing = true;
      poll(true);
      done = waitUntil(std::min(deadline, std::chrono::steady_clock::now() + std::chrono::duration<double>(0.1)));
      if (done || std::chrono::steady_clock::now() >= deadline) break;
      state.diagnosing = false;
      poll(false);
      done = waitUntil(std::min(deadline, std::chrono::steady_clock::now() + std::chrono::duration<double>(0.9)));
    }
    if (!done) {
      // Loops in JIT'd code poll the cancel flag; the poll abandons the thread.
      state.cancelled = true;
      poll(true);
      doneCv.wait(lock, [&] { return running == 0; });
    }
    poll(false);
  }
  for (auto& t : threads) t.join();
  if (request.options.progress)  // the last word
    request.options.progress(state.groupsDone.load(), total, state.distinctFindings.load());
  result.waitingCpuMilliseconds = threadCpu() - waitingStart;
  if (const char* path = state.path.load()) result.path = path;
  if (!request.options.traceFile.empty()) writeTrace(state.traceState, request.options.traceFile);
  result.writers = takeWriters(state.writerState);
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.findings = state.takeFindings();
  if (std::vector<SpinningThread> waits = state.deadlock(); !waits.empty()) {
    Finding deadlock{Finding::Severity::Error, "deadlock",
                     "kernel '" + name + "' can never finish: every thread still running waits in a loop for " +
                         "memory that no thread able to run will write",
                     {}};
    for (const SpinningThread& w : waits) {
      deadlock.message += "; thread (" + std::to_string(w.thread.thread[0]) + "," + std::to_string(w.thread.thread[1]) +
                          "," + std::to_string(w.thread.thread[2]) + ") of threadgroup (" +
                          std::to_string(w.thread.threadgroup[0]) + "," + std::to_string(w.thread.threadgroup[1]) +
                          "," + std::to_string(w.thread.threadgroup[2]) + ") keeps reading " + w.memory;
      if (!w.thread.where.file.empty()) {
        deadlock.message += " at line " + std::to_string(w.thread.where.line);
        const SourcePosition& at = w.thread.where;
        if (std::none_of(deadlock.locations.begin(), deadlock.locations.end(), [&](const SourcePosition& l) {
              return l.file == at.file && l.line == at.line && l.column == at.column;
            }))
          deadlock.locations.push_back(at);
      }
      deadlock.accesses.push_back(w.thread);
    }
    deadlock.hint = "Metal does not promise that a thread spinning in a loop lets the other threads of its "
                    "threadgroup run, nor that threadgroups run at the same time or in any order: wait at a "
                    "threadgroup_barrier, or split the work into two dispatches";
    result.findings.push_back(std::move(deadlock));
  } else if (state.cancelled) {
    Finding timeout{Finding::Severity::Error, "timeout",
                               "kernel '" + name + "' did not finish within " + seconds(request.options.timeoutSeconds) +
                                   " s (an endless loop, or a thread spinning on a value that no "
                                   "thread will write); it was stopped",
                               {}};
    if (auto stuck = state.stuck()) {
      const AccessRecord& r = stuck->record;
      timeout.message += stuck->threadKnown ? "; the thread shown below was still running"
                                            : "; a thread of threadgroup (" + std::to_string(r.threadgroup[0]) + "," +
                                                  std::to_string(r.threadgroup[1]) + "," +
                                                  std::to_string(r.threadgroup[2]) + ") was still running";
      if (!r.where.file.empty()) {
        timeout.message += " the loop at line " + std::to_string(r.where.line);
        timeout.locations.push_back(r.where);
      }
      if (stuck->threadKnown) timeout.accesses.push_back(r);
    }
    result.findings.push_back(std::move(timeout));
  }
  result.completed = !state.cancelled && !state.stopped();
  return result;
}
}  // namespace

}  // namespace mslsim
