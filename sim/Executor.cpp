#include "Executor.h"

#include <signal.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <mutex>
#include <set>
#include <thread>

#include <boost/context/detail/fcontext.hpp>

#include "StagedBuffers.h"
#include "Hooks.h"
#include "InactiveLaneCheck.h"
#include "Observer.h"

namespace mslsim {

// ---------------------------------------------------------------------------------------------
// Geometry

DispatchGeometry::DispatchGeometry(DispatchMode mode, Size3 grid, Size3 threadgroup)
    : mode_(mode), tg_(threadgroup) {
  for (int d = 0; d < 3; ++d) {
    if (mode == DispatchMode::Threads) {
      groups_[d] = tg_[d] ? uint32_t((uint64_t(grid[d]) + tg_[d] - 1) / tg_[d]) : 0;
      threadsPerGrid_[d] = grid[d];
    } else {
      groups_[d] = grid[d];
      threadsPerGrid_[d] = grid[d] * tg_[d];
    }
  }
}

Size3 DispatchGeometry::threadgroupSize(Size3 group) const {
  Size3 size = tg_;
  if (mode_ == DispatchMode::Threads)
    for (int d = 0; d < 3; ++d)
      size[d] = std::min(tg_[d], threadsPerGrid_[d] - group[d] * tg_[d]);
  return size;
}

Size3 DispatchGeometry::groupAt(uint64_t linear) const {
  Size3 g;
  g[0] = uint32_t(linear % groups_[0]);
  g[1] = uint32_t(linear / groups_[0] % groups_[1]);
  g[2] = uint32_t(linear / (uint64_t(groups_[0]) * groups_[1]));
  return g;
}

void DispatchGeometry::writeBuiltin(BuiltinValue builtin, Size3 group, Size3 groupSize, Size3 local,
                                    uint32_t linear, unsigned components, unsigned componentSize,
                                    void* out) const {
  auto ceilDiv = [](uint32_t a, uint32_t b) { return (a + b - 1) / b; };
  uint32_t groupThreads = groupSize[0] * groupSize[1] * groupSize[2];
  uint32_t requestedThreads = tg_[0] * tg_[1] * tg_[2];
  Size3 v{0, 0, 0};
  switch (builtin) {
    case BuiltinValue::ThreadPositionInGrid:
      for (int d = 0; d < 3; ++d) v[d] = group[d] * tg_[d] + local[d];
      break;
    case BuiltinValue::ThreadPositionInThreadgroup: v = local; break;
    case BuiltinValue::ThreadgroupPositionInGrid: v = group; break;
    case BuiltinValue::ThreadsPerThreadgroup: v = groupSize; break;
    case BuiltinValue::ThreadgroupsPerGrid: v = groups_; break;
    case BuiltinValue::ThreadsPerGrid:
    case BuiltinValue::GridSize: v = threadsPerGrid_; break;
    case BuiltinValue::GridOrigin: break;
    case BuiltinValue::ThreadIndexInThreadgroup: v[0] = linear; break;
    case BuiltinValue::ThreadIndexInSimdgroup: v[0] = linear % kSimdWidth; break;
    case BuiltinValue::SimdgroupIndexInThreadgroup: v[0] = linear / kSimdWidth; break;
    case BuiltinValue::ThreadsPerSimdgroup: v[0] = kSimdWidth; break;
    case BuiltinValue::SimdgroupsPerThreadgroup: v[0] = ceilDiv(groupThreads, kSimdWidth); break;
    case BuiltinValue::DispatchThreadsPerThreadgroup: v = tg_; break;
    case BuiltinValue::DispatchSimdgroupsPerThreadgroup:
      v[0] = ceilDiv(requestedThreads, kSimdWidth);
      break;
    case BuiltinValue::ThreadIndexInQuadgroup: v[0] = linear % 4; break;
    case BuiltinValue::QuadgroupIndexInThreadgroup: v[0] = linear / 4; break;
    case BuiltinValue::ThreadsPerQuadgroup: v[0] = 4; break;
    case BuiltinValue::QuadgroupsPerThreadgroup: v[0] = ceilDiv(groupThreads, 4); break;
  }
  auto* bytes = static_cast<uint8_t*>(out);
  for (unsigned c = 0; c < components; ++c) {
    if (componentSize == 2) {
      uint16_t x = uint16_t(v[c]);
      std::memcpy(bytes + 2 * c, &x, 2);
    } else {
      std::memcpy(bytes + 4 * c, &v[c], 4);
    }
  }
}

bool variesPerThread(BuiltinValue v) {
  switch (v) {
    case BuiltinValue::ThreadPositionInGrid:
    case BuiltinValue::ThreadPositionInThreadgroup:
    case BuiltinValue::ThreadIndexInThreadgroup:
    case BuiltinValue::ThreadIndexInSimdgroup:
    case BuiltinValue::SimdgroupIndexInThreadgroup:
    case BuiltinValue::ThreadIndexInQuadgroup:
    case BuiltinValue::QuadgroupIndexInThreadgroup: return true;
    default: return false;
  }
}

const char* threadSchedulingName(ThreadScheduling s) {
  switch (s) {
    case ThreadScheduling::Sequential: return "sequential";
    case ThreadScheduling::Coroutines: return "coroutines";
    case ThreadScheduling::Fibers: return "fibers";
  }
  return "?";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Fiber stacks: mmap'd, with a guard page, reused across threadgroups by one worker.

class FiberStack {
 public:
  static constexpr size_t kSize = 256 * 1024;
  FiberStack() {
    base_ = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
    if (base_ == MAP_FAILED) throw std::bad_alloc();
    mprotect(base_, size_t(sysconf(_SC_PAGESIZE)), PROT_NONE);
  }
  ~FiberStack() { munmap(base_, kSize); }
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  void* top() const { return static_cast<char*>(base_) + kSize; }
  bool isGuardPage(const void* address) const {
    auto* a = static_cast<const char*>(address);
    auto* b = static_cast<const char*>(base_);
    return a >= b && a < b + sysconf(_SC_PAGESIZE);
  }

 private:
  void* base_;
};

using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;

struct CallSite {
  const char* file = nullptr;
  unsigned line = 0, column = 0;
  bool operator<(const CallSite& o) const {
    if (file == o.file) return std::tie(line, column) < std::tie(o.line, o.column);  // one string
    int c = std::strcmp(file ? file : "", o.file ? o.file : "");
    if (c != 0) return c < 0;
    return std::tie(line, column) < std::tie(o.line, o.column);
  }
  bool operator==(const CallSite& o) const {
    if (file == o.file) return line == o.line && column == o.column;  // the usual case: one string
    return !(*this < o) && !(o < *this);
  }
  SourcePosition position() const { return {file ? file : "", line, column}; }
};

enum class ThreadState { Runnable, AtThreadgroupBarrier, AtSimdCollective, Done, Aborted };

struct SimThread {
  uint32_t linear = 0;
  Size3 local{0, 0, 0};
  ThreadState state = ThreadState::Runnable;
  fcontext_t context = nullptr;    // Fibers: the fiber, while suspended
  fcontext_t scheduler = nullptr;  // Fibers: where to go back when it blocks
  void* coroutine = nullptr;       // Coroutines: the handle, once started
  std::vector<void*> args;
  struct alignas(16) Slot : std::array<uint8_t, 16> {};  // the thread loop relies on the alignment
  std::vector<Slot> builtinStorage;
  const FiberStack* stack = nullptr;
  // Pending synchronisation.
  CallSite site;
  unsigned flags = 0;
  std::vector<uint8_t> contribution;  // SIMD exchange: a copy of this lane's value
  void* lanes = nullptr;              // and where all 32 contributions go
  unsigned size = 0;            // 0 for simdgroup_barrier
  unsigned resultMask = 0;
  // The loops around its SIMD-group calls it is in, outermost first: (loop, iterations done), as
  // insertSimdLoopPositions reports them. Compared before the call sites (resolveSimdGroups).
  std::vector<std::pair<uint32_t, uint32_t>> loops;
};

class DispatchState;

// Tells a thread spinning in a polling loop (see insertCancellationPolls) from one that computes:
// fed while the dispatch is being diagnosed (DispatchState::diagnosing), it sees each round of a
// loop as the reads the loop's exit depends on, and the thread spins once it has gone round
// kRounds times reading the same values at the same addresses. As the exit depends on nothing
// else that changes, the thread cannot leave until some other thread writes that memory.
class SpinWatch {
 public:
  struct Read {
    uintptr_t address;
    uint64_t value;
    uint32_t size;
    bool operator==(const Read& o) const { return address == o.address && value == o.value && size == o.size; }
  };
  static constexpr unsigned kRounds = 4;

  void read(uintptr_t address, uint64_t value, uint32_t size) {
    if (reads_.size() < kMaxReads) reads_.push_back({address, value, size});
    else overflow_ = true;
  }
  // At the header of the loop at `loop`, run by `thread`: whether that thread now spins there.
  bool round(CallSite loop, uint64_t thread) {
    bool same = loop == loop_ && thread == thread_ && !reads_.empty() && !overflow_ && reads_ == previous_;
    rounds_ = same ? rounds_ + 1 : 0;
    loop_ = loop;
    thread_ = thread;
    previous_.swap(reads_);
    reads_.clear();
    overflow_ = false;
    return rounds_ >= kRounds;
  }
  // The reads of a round of the loop the thread spins in.
  const std::vector<Read>& polled() const { return previous_; }

 private:
  static constexpr size_t kMaxReads = 16;
  CallSite loop_;
  uint64_t thread_ = ~uint64_t(0);
  unsigned rounds_ = 0;
  std::vector<Read> reads_, previous_;
  bool overflow_ = false;
};

// A thread found spinning, for the deadlock report.
struct SpinningThread {
  AccessRecord thread;  // its identity and the loop's position
  std::string memory;   // what it keeps reading: "buffer 0 ('flag') element 0 (value 0)"
};

// A hardware fault (bad address, integer division by zero, stack overflow) in JIT'd code ends the
// threadgroup with a finding instead of killing the process. The handler runs on an alternate
// stack and jumps back to the worker's recovery point.
struct FaultState {
  bool armed = false;
  sigjmp_buf* escape = nullptr;
  int signal = 0;
  void* address = nullptr;
};
thread_local FaultState tFault;

void faultHandler(int signal, siginfo_t* info, void*) {
  if (tFault.armed && tFault.escape) {
    tFault.signal = signal;
    tFault.address = info->si_addr;
    tFault.armed = false;
    siglongjmp(*tFault.escape, 2);
  }
  // Not ours: let the default action happen when the instruction is retried.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, nullptr);
}

void installFaultHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &faultHandler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(s, &action, nullptr);
  });
}

// Each worker gets its own alternate signal stack: a stack overflow leaves no room on the fiber's.
class AlternateSignalStack {
 public:
  AlternateSignalStack() : memory_(kSize) {
    stack_t ss{};
    ss.ss_sp = memory_.data();
    ss.ss_size = kSize;
    sigaltstack(&ss, &previous_);
  }
  ~AlternateSignalStack() { sigaltstack(&previous_, nullptr); }

 private:
  static constexpr size_t kSize = 64 * 1024;
  std::vector<char> memory_;
  stack_t previous_{};
};

// Runs the threads of one threadgroup; the hooks reach it through tCurrent.
class ThreadgroupScheduler {
 public:
  ThreadgroupScheduler(DispatchState& dispatch, std::vector<std::unique_ptr<FiberStack>>& stacks)
      : dispatch_(dispatch), stacks_(stacks) {}

  void run(Size3 group);

  // Hook entry points, called on the current fiber.
  // The call site as three values, not a CallSite: built by the hook and copied whole, it was
  // stored to the stack in parts and read back as one 16-byte value, and the failed store
  // forwarding took a sixth of a checked tree reduction's time.
  void threadgroupBarrier(unsigned flags, const char* file, unsigned line, unsigned column);
  unsigned simdExchange(const void* value, void* lanes, unsigned size, const char* file, unsigned line,
                        unsigned column);  // the call site as three values, as for threadgroupBarrier
  // Called by the hooks first: in region mode, the thread the JIT'd loop says is running; in a
  // checked thread loop, the one thread record becomes the thread the loop is at.
  ThreadgroupScheduler* enter() {
    if (regionMode_) {
      SimThread* running = &threads_[regionThread_];
      if (running != current_) {
        current_ = running;
        setOwnReadKey(running->linear);
      }
    }
    else if (threadLoopMode_ && current_->linear != regionThread_) moveToLoopThread();
    return this;
  }
  unsigned lane() const { return current_ ? current_->linear % kSimdWidth : 0; }
  unsigned simdResult() const { return current_ ? current_->resultMask : 0; }
  void* coroutineFrame(uint64_t size);
  void* coroutineFrames(uint64_t size);
  void allocateFrames(uint64_t size);
  char* arena() { return reinterpret_cast<char*>(arena_.data()); }
  // The dispatch was cancelled (timeout): abandon the running thread, which polled in `loop`.
  [[noreturn]] void abortCurrentThread(CallSite loop);
  // While the dispatch is diagnosed for a deadlock: the running thread is at the header of `loop`,
  // or read `value` at `address` where the loop's exit depends on it.
  void loopRound(CallSite loop);
  void polledRead(uintptr_t address, uint64_t value, uint32_t size) { spin_.read(address, value, size); }
  // The running thread's position in the loops around SIMD-group calls (hook::kLoopEnter, ...).
  void loopEnter(uint32_t loop, uint32_t depth) {
    if (!current_) return;
    current_->loops.resize(depth);
    current_->loops.push_back({loop, 0});
  }
  void loopNext(uint32_t depth) {
    if (current_ && depth < current_->loops.size()) {
      current_->loops.resize(depth + 1);
      ++current_->loops[depth].second;
    }
  }
  void loopDepth(uint32_t depth) {
    if (current_ && depth < current_->loops.size()) current_->loops.resize(depth);
  }
  // Runs the observers on an access about to happen; false if it must not happen.
  bool access(uintptr_t address, uint64_t size, uint32_t site, const uint8_t* newValue);
  void privateOverrun(uintptr_t address, uint64_t size, uint32_t site, uintptr_t base);
  unsigned inactiveLaneRead(unsigned lane, CallSite site);
  void setObservers(std::vector<std::unique_ptr<ExecutionObserver>> observers);
  const void* accessFilter() const { return filter_.data(); }

 private:
  static void fiberMain(transfer_t t);
  void bindArguments(SimThread& t);
  // varyingOnly: those that differ between threads of one threadgroup (the others are written).
  void writeBuiltins(SimThread& t, Size3 group, Size3 groupSize, bool varyingOnly = false);
  void block(ThreadState state);
  bool resolveSimdGroups();
  bool resolveBarrier(Size3 group);
  std::string describeThread(const SimThread& t, Size3 group) const;

  ThreadIdentity identity(const SimThread& t) const;
  // The order threads are resumed in, per the dispatch's schedule.
  void arrangeOrder(uint32_t count);
  std::vector<uint32_t> order_;
  std::mt19937_64 random_;

  DispatchState& dispatch_;
  std::vector<std::unique_ptr<FiberStack>>& stacks_;
  std::vector<std::unique_ptr<ExecutionObserver>> observers_;
  // Per access site, the byte range its accesses may touch without the hook (hook::kAccessFilter);
  // threadgroup sites are rebased on the arena at each threadgroup.
  struct FilterRange {
    uint64_t begin = 0, end = 0;
  };
  std::vector<FilterRange> filter_;
  struct ThreadgroupSiteRange {
    uint32_t site;
    uint64_t begin, end;  // arena offsets
    bool settled;         // the range is in settledRanges_ (else in filter_)
  };
  std::vector<ThreadgroupSiteRange> threadgroupSites_;
  // Settled reads. When every observer can tell (ExecutionObserver::threadgroupReadsSettled), each
  // 4-byte word of the arena carries a tag: who may read it without the observers being told,
  // until the next access to it they see or the next barrier. A plain read inside its site's
  // allocation (settledRanges_) whose words are tagged for everyone, or for the running thread's
  // SIMD-group, returns at the top of the hook: a tiled GEMM's tile reads, checked.
  bool settlesReads_ = false;
  std::vector<FilterRange> settledRanges_;  // per site; empty for sites that are not plain reads
  std::vector<uint32_t> readTags_;          // per arena word: key << kKeyWhoBits | who
  uint32_t readGeneration_ = 0;             // the key: new at each barrier and threadgroup
  static constexpr unsigned kKeyWhoBits = 6;  // who: 63 everyone, 1 + n SIMD-group n (at most 32)
  uint32_t keyEveryone_ = 0, keyOwn_ = 0;
  void newReadGeneration();
  void setOwnReadKey(uint32_t linear) { keyOwn_ = (readGeneration_ << kKeyWhoBits) | (linear / kSimdWidth + 1); }
  bool readSettled(uintptr_t address, uint64_t size, uint32_t site) const {
    const FilterRange& r = settledRanges_[site];
    if (address < r.begin || address + size > r.end) return false;
    for (uint64_t word = (address - arenaBase_) / 4, last = (address + size - 1 - arenaBase_) / 4; word <= last; ++word)
      if (readTags_[word] != keyEveryone_ && readTags_[word] != keyOwn_) return false;
    return true;
  }
  uintptr_t arenaBase_ = 0;
  void settleReads(uint64_t arenaOffset, uint64_t size);
  Size3 group_{0, 0, 0}, groupSize_{1, 1, 1};
  uint64_t groupLinear_ = 0;
  std::vector<SimThread> threads_;
  SimThread starter_;  // Coroutines: the arguments threads start from
  const char* sequentialArena_ = nullptr;  // the arena threads_[0]'s arguments were bound to
  GuardedMemory arena_;  // threadgroup memory, fenced off from the host's
  SimThread* current_ = nullptr;
  ThreadScheduling scheduling_ = ThreadScheduling::Sequential;
  // Coroutines: one frame per thread, `frameStride_` bytes apart, reused across threadgroups.
  std::unique_ptr<char, decltype(&std::free)> frames_{nullptr, &std::free};
  uint64_t frameStride_ = 0, frameCapacity_ = 0;
  bool framesReady_ = false;  // sized for this threadgroup
  uint32_t frameCount_ = 0;    // threads in this threadgroup
  uint32_t frameOwner_ = 0;    // the thread whose coroutine is starting
  // Kept by the hooks so that releasing a barrier every thread reached is one pass over the threads.
  uint32_t atBarrier_ = 0, atSimdCollective_ = 0;
  CallSite barrierSite_;  // of the first thread to arrive
  bool barrierSitesDiffer_ = false;
  unsigned barrierFlags_ = 0;
  // Where a thread that cannot go on (timeout in a thread loop, a hardware fault) leaves the JIT'd
  // code: the worker's own stack, in run().
  sigjmp_buf escape_;
  void runThreads(Size3 group, Size3 size, uint32_t count);
  void runSequentially(Size3 group, Size3 size, uint32_t count);
  void runRegions(Size3 group, Size3 size, uint32_t count);
  bool sameBarrier(const RegionLoopLayout& layout, Size3 group, Size3 size, uint32_t count);
  // Region loops under checks (sync, or observers): the frames say where each thread waits.
  void runCheckedRegions(Size3 group, Size3 size, uint32_t count);
  bool releaseBarrierFromFrames(const RegionLoopLayout& layout, Size3 group, uint32_t count);
  // The sync check's findings, the same whether the threads ran as coroutines or in a region loop:
  // threads waiting at two barriers (the first of each and how many more), and threads that
  // returned before the barrier the others wait at.
  Finding barriersDiffer(Size3 group, CallSite a, const SimThread& firstAtA, size_t atA, CallSite b,
                         const SimThread& firstAtB, size_t atB) const;
  Finding barrierSkipped(Size3 group, CallSite site, uint32_t returned, uint32_t count,
                         const SimThread& firstReturned) const;
  uint32_t suspensionIndex(const RegionLoopLayout& layout, uint32_t thread) const;
  std::vector<uint32_t> barrierOfSuspension_;  // runCheckedRegions: suspension index -> first index of its barrier
  // In region mode the JIT'd loops store the running thread's index here; the hooks make it current.
  uint32_t regionThread_ = 0;
  // A checked kernel's JIT'd thread loop runs: threads_[0] stands for the thread it is at.
  bool threadLoopMode_ = false;
  void moveToLoopThread();
  bool regionMode_ = false;
  std::vector<uint8_t> runnable_;
  SpinWatch spin_;
  bool spinning_ = false;  // registered with the dispatch as spinning
  // "buffer 0 ('flag') element 2", "threadgroup variable 'ready'": where `address` is ("" when in
  // thread-private memory).
  std::string describeMemory(uintptr_t address, uint64_t size) const;
  // "12 bytes past the end of buffer 1 ('out') (400 bytes)": where a faulting address lies, when it
  // is within the inaccessible band of an allocation (GuardedMemory); "" otherwise.
  std::string describeNearAllocation(uintptr_t address) const;
  void prepareThreads(Size3 group, Size3 size, uint32_t count);
  void prepareStarter(Size3 group, Size3 size);
  void resume(SimThread& t);
  bool isPrivateFrame(uintptr_t address, uint64_t size) const;
  void reportFault(Size3 group);
};

thread_local ThreadgroupScheduler* tCurrent = nullptr;
// The worker thread's stack, for kernels that run on it (no fibers): its lowest address, and the
// frame of ThreadgroupScheduler::run, above which every frame is the host's.
thread_local uintptr_t tStackLow = 0;
thread_local uintptr_t tKernelFramesTop = 0;
// The place in the dispatch order of the threadgroup this worker runs (findings are kept per place).
thread_local uint64_t tGroupOrder = ~uint64_t(0) - 1;

// Shared by the workers of one dispatch.
class DispatchState : public FindingSink {
 public:
  DispatchState(const DispatchRequest& r)
      : request(r), kernel(*r.kernel), geometry(r.mode, r.grid, r.threadgroup) {}
  DispatchFacts facts;
  std::shared_ptr<void> checkState, traceState, writerState;
  // Observers that want to hear of findings (the tracer), registered by the workers.
  void listen(ExecutionObserver* o) {
    std::lock_guard<std::mutex> lock(mutex_);
    listeners_.push_back(o);
  }
  void unlisten(ExecutionObserver* o) {
    std::lock_guard<std::mutex> lock(mutex_);
    listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), o), listeners_.end());
  }

  const DispatchRequest& request;
  const ExecutableKernel& kernel;
  DispatchGeometry geometry;
  uint64_t arenaBytes = 0;
  std::vector<uint64_t> threadgroupArgOffsets;  // by parameter position
  std::vector<size_t> builtinArguments;         // positions of the built-in parameters
  std::vector<size_t> varyingBuiltinArguments;  // of those that differ between threads of a group
  std::atomic<uint64_t> nextGroup{0};
  std::atomic<uint64_t> groupsDone{0};  // for DispatchOptions::progress
  std::atomic<uint64_t> distinctFindings{0};  // likewise
  unsigned workers = 1;
  // An error that stops the dispatch (or the last one --max-errors allows) was found in the
  // threadgroup run in this place of the dispatch order: the threadgroups after it are not run
  // (or, when a worker had started one, their findings are dropped), the ones before it run to
  // their end. The findings are those of one worker running the threadgroups in order.
  static constexpr uint64_t kNotStopped = ~uint64_t(0);
  std::atomic<uint64_t> stopOrder{kNotStopped};
  bool stops(uint64_t order) const { return stopOrder.load(std::memory_order_relaxed) <= order; }
  bool stopped() const { return stopOrder.load() != kNotStopped; }
  std::atomic<bool> cancelled{false}; // timeout: abandon running threadgroups too
  InactiveLaneFill inactiveLaneFill;  // what a read of an inactive SIMD lane yields

  // Deadlock diagnosis, once the dispatch has run for a while: each worker whose running thread
  // spins registers it; when every worker still running threadgroups spins, none can ever leave.
  std::atomic<bool> diagnosing{false};
  std::atomic<unsigned> activeWorkers{0};
  // Registers (or, with nullopt, withdraws) the spinning thread of `worker`; true when every active
  // worker now spins: the dispatch is then deadlocked and cancelled.
  bool spinning(const void* worker, std::optional<SpinningThread> thread) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread) spinning_[worker] = std::move(*thread);
    else spinning_.erase(worker);
    if (!thread || spinning_.size() < activeWorkers.load()) return false;
    if (deadlock_.empty())
      for (auto& [w, t] : spinning_) deadlock_.push_back(t);
    cancelled = true;
    return true;
  }
  void forgetSpinning() {
    std::lock_guard<std::mutex> lock(mutex_);
    spinning_.clear();
  }
  std::vector<SpinningThread> deadlock() {
    std::lock_guard<std::mutex> lock(mutex_);
    return deadlock_;
  }

  // The first thread the timeout stopped, for the report. A JIT'd loop over a threadgroup's
  // threads (no synchronisation) does not say which of them was running: only the threadgroup.
  struct Stuck {
    AccessRecord record;
    bool threadKnown;
  };
  void noteStuck(AccessRecord record, bool threadKnown) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stuck_) stuck_ = Stuck{std::move(record), threadKnown};
  }
  std::optional<Stuck> stuck() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stuck_;
  }

  void report(Finding f) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // Barrier and SIMD call sites come from __builtin_COLUMN in the compiled text: map them.
    if (kernel.sources)
      for (auto& l : f.locations)
        if (l.column) l = kernel.sources->map(l.file, l.line, l.column);
    // One finding per kind, memory and pair of source positions: the same bug in many threads,
    // elements and threadgroups is one finding with a count.
    // The pair of positions is unordered: a read-write and a write-read race between the same two
    // statements are the same bug.
    std::vector<std::string> places;
    for (auto& l : f.locations) places.push_back(l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column));
    std::sort(places.begin(), places.end());
    std::string key = f.kind + "|" + f.memory.substr(0, f.memory.find('['));
    for (auto& p : places) key += "|" + p;
    // Memory errors do not stop the dispatch (a bug is usually hit by many threads and the report
    // counts them); synchronisation errors do, as the threadgroup cannot go on.
    static const std::set<std::string> kStopping = {"barrier-divergence", "deadlock", "simd-size-mismatch",
                                                    "invalid-memory-access", "stack-overflow",
                                                    "integer-division-by-zero"};
    uint64_t order = tGroupOrder;
    bool error = f.severity == Finding::Severity::Error;
    if (error && kStopping.count(f.kind)) stopAt(order);
    if (seen_.insert(key).second) {
      distinctFindings.fetch_add(1, std::memory_order_relaxed);
      for (auto* o : listeners_) o->finding(f);
      if (error && request.options.maxErrors && ++errors_ >= request.options.maxErrors) stopAt(order);
    }
    // Kept per threadgroup until the dispatch ends, then merged in dispatch order (takeFindings).
    Folded& group = pending_[order];
    auto it = group.index.find(key);
    if (it != group.index.end()) {
      ++group.findings[it->second].second.count;
      return;
    }
    group.index[key] = group.findings.size();
    group.findings.emplace_back(key, std::move(f));
  }

  // The findings of the threadgroups up to the one that stopped the dispatch, in dispatch order:
  // the same whatever the number of workers.
  std::vector<Finding> takeFindings() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Finding> findings;
    std::map<std::string, size_t> merged;
    unsigned errors = 0;
    for (auto& [order, group] : pending_) {
      if (order > stopOrder) break;
      for (auto& [key, f] : group.findings) {
        auto it = merged.find(key);
        if (it != merged.end()) {
          findings[it->second].count += f.count;
          continue;
        }
        errors += f.severity == Finding::Severity::Error;
        merged[key] = findings.size();
        findings.push_back(std::move(f));
      }
      if (request.options.maxErrors && errors >= request.options.maxErrors) break;
    }
    pending_.clear();
    return findings;
  }

 private:
  void stopAt(uint64_t order) {
    uint64_t current = stopOrder.load();
    while (order < current && !stopOrder.compare_exchange_weak(current, order)) {
    }
  }
  struct Folded {
    std::vector<std::pair<std::string, Finding>> findings;  // in the order they were reported
    std::map<std::string, size_t> index;
  };
  std::map<const void*, SpinningThread> spinning_;
  std::vector<SpinningThread> deadlock_;
  std::mutex mutex_;
  std::map<uint64_t, Folded> pending_;  // by place in the dispatch order
  std::set<std::string> seen_;          // every key so far (listeners hear of each once)
  unsigned errors_ = 0;
  std::vector<ExecutionObserver*> listeners_;
  std::optional<Stuck> stuck_;
};

constexpr uint32_t kPoisonWord = 0x7FA5A5A5;  // a quiet NaN as float, 0x7FA5A5A5 as int

void ThreadgroupScheduler::bindArguments(SimThread& t) {
  const auto& args = dispatch_.kernel.info.arguments;
  t.args.resize(args.size());
  t.builtinStorage.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgumentInfo& a = args[i];
    const BoundArgument& b = dispatch_.request.arguments[i];
    t.args[i] = t.builtinStorage[i].data();
    switch (a.role) {
      case ArgumentRole::Buffer:
        // The trampoline dereferences args[i]: a pointer argument reads the address from the slot,
        // a reference argument binds to the buffer itself.
        if (a.isReference)
          t.args[i] = b.buffer;
        else
          std::memcpy(t.builtinStorage[i].data(), &b.buffer, sizeof(void*));
        break;
      case ArgumentRole::ThreadgroupMemory: {
        void* p = arena_.data() + dispatch_.threadgroupArgOffsets[i];
        std::memcpy(t.builtinStorage[i].data(), &p, sizeof(void*));
        break;
      }
      case ArgumentRole::Builtin: break;
    }
  }
}

void ThreadgroupScheduler::writeBuiltins(SimThread& t, Size3 group, Size3 groupSize, bool varyingOnly) {
  const auto& args = dispatch_.kernel.info.arguments;
  for (size_t i : varyingOnly ? dispatch_.varyingBuiltinArguments : dispatch_.builtinArguments) {
    const ArgumentInfo& a = args[i];
    dispatch_.geometry.writeBuiltin(a.builtin, group, groupSize, t.local, t.linear, a.components,
                                    a.componentSize, t.builtinStorage[i].data());
  }
}

void ThreadgroupScheduler::run(Size3 group) {
  Size3 size = dispatch_.geometry.threadgroupSize(group);
  uint32_t count = size[0] * size[1] * size[2];
  if (count == 0) return;
  // Threadgroup memory is not zeroed on a GPU: poison it so a read-before-write shows.
  if (!arena_.data() || arena_.size() != dispatch_.arenaBytes) arena_ = GuardedMemory(dispatch_.arenaBytes);
  for (size_t i = 0; i + 4 <= arena_.size(); i += 4) std::memcpy(arena_.data() + i, &kPoisonWord, 4);
  tKernelFramesTop = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));

  tCurrent = this;
  scheduling_ = dispatch_.kernel.scheduling;
  framesReady_ = false;
  current_ = nullptr;
  group_ = group;
  groupSize_ = size;
  groupLinear_ = group[0] + uint64_t(dispatch_.geometry.threadgroupCount()[0]) *
                                (group[1] + uint64_t(dispatch_.geometry.threadgroupCount()[1]) * group[2]);
  if (!observers_.empty()) {
    ThreadIdentity first{group, size, groupLinear_, 0};
    for (auto& o : observers_) o->threadgroupBegin(first, arena());
  }
  uintptr_t arenaBase = reinterpret_cast<uintptr_t>(arena_.data());
  for (const ThreadgroupSiteRange& r : threadgroupSites_)
    (r.settled ? settledRanges_ : filter_)[r.site] = {arenaBase + r.begin, arenaBase + r.end};
  arenaBase_ = arenaBase;
  newReadGeneration();  // the observers start the threadgroup afresh
  tFault.armed = true;
  tFault.escape = &escape_;
  if (sigsetjmp(escape_, 0) == 0)
    runThreads(group, size, count);
  else if (tFault.signal)
    reportFault(group);
  tFault.armed = false;
  tFault.signal = 0;
  current_ = nullptr;
  regionMode_ = threadLoopMode_ = false;  // also after an escape from a JIT'd loop
  for (auto& o : observers_) o->threadgroupEnd();
  tCurrent = nullptr;
}

unsigned ThreadgroupScheduler::inactiveLaneRead(unsigned lane, CallSite site) {
  if (dispatch_.facts.checks.simd && current_) {
    // Reported now, kept only if the value turns out to reach memory (dispatchSettlingInactiveLaneReads).
    Finding f;
    f.kind = "simd-inactive-lane";
    f.message = "lane " + std::to_string(current_->linear % kSimdWidth) + " read the value of lane " +
                std::to_string(lane) + ", which " + (lane >= kSimdWidth ? "does not exist" : "is not active here") +
                " (undefined in MSL)";
    f.locations.push_back(site.position());
    f.accesses.push_back({"SIMD-group function call", site.position(), group_, current_->local,
                          current_->linear % kSimdWidth});
    dispatch_.report(std::move(f));
  }
  const InactiveLaneFill& fill = dispatch_.inactiveLaneFill;
  if (!fill.byte || !fill.onlyAt) return fill.byte;
  SourcePosition at = dispatch_.kernel.sources ? dispatch_.kernel.sources->map(site.file, site.line, site.column)
                                               : site.position();
  return at.file == fill.onlyAt->file && at.line == fill.onlyAt->line && at.column == fill.onlyAt->column ? fill.byte : 0;
}

void ThreadgroupScheduler::setObservers(std::vector<std::unique_ptr<ExecutionObserver>> observers) {
  observers_ = std::move(observers);
  const ExecutableKernel& kernel = dispatch_.kernel;
  size_t sites = kernel.sites ? kernel.sites->size() : 0;
  bool everyAccess = false;
  for (auto& o : observers_) everyAccess |= o->needsEveryAccess();
  threadgroupSites_.clear();
  settlesReads_ = false;
  settledRanges_.assign(sites, {});
  readTags_.assign((dispatch_.arenaBytes + 3) / 4, 0);
  if (observers_.empty()) {  // nobody listens: no access needs the hook
    filter_.assign(sites, {0, ~uint64_t(0)});
    return;
  }
  filter_.assign(sites, {0, 0});  // empty: every access calls the hook
  // Every access must be seen: but plain reads of threadgroup memory inside their allocation may
  // be settled. Else only the bounds check listens: an access inside the allocation its pointer
  // comes from (as the check itself would find it) has nothing to report.
  settlesReads_ = everyAccess;
  const DispatchFacts& facts = dispatch_.facts;
  for (size_t i = 0; i < sites; ++i) {
    const SiteAllocation& at = facts.siteAllocations[i];
    bool plainRead = (*kernel.sites)[i].op == AccessOp::Load;
    if (everyAccess && !plainRead) continue;
    if (const MemoryRegion* r = at.buffer) {
      if (!everyAccess && !(r->readOnly && isWrite((*kernel.sites)[i].op)))
        filter_[i] = {r->begin, r->end};  // a write to read-only memory there is reported
    } else if (const MemoryRegion* r = at.threadgroupArgument) {
      threadgroupSites_.push_back({uint32_t(i), r->begin, r->end, everyAccess});
    } else if (const ThreadgroupVariable* v = at.variable) {
      threadgroupSites_.push_back({uint32_t(i), v->offset, v->offset + v->size, everyAccess});
    }
  }
}

void ThreadgroupScheduler::newReadGeneration() {
  if (!settlesReads_) return;
  if (++readGeneration_ >= (1u << (32 - kKeyWhoBits))) {  // the keys would repeat: forget every tag
    std::fill(readTags_.begin(), readTags_.end(), 0);
    readGeneration_ = 1;
  }
  keyEveryone_ = (readGeneration_ << kKeyWhoBits) | ((1u << kKeyWhoBits) - 1);
  setOwnReadKey(current_ ? current_->linear : 0);
}

// After an access the observers saw: the words it touched, settled for whom the observers say.
void ThreadgroupScheduler::settleReads(uint64_t arenaOffset, uint64_t size) {
  for (uint64_t word = arenaOffset / 4; word * 4 < arenaOffset + size && word < readTags_.size(); ++word) {
    SettledReads who{SettledReads::Everyone};
    if (word * 4 + 4 > arena_.size()) who = {};
    for (auto& o : observers_) {
      if (who.who == SettledReads::Nobody) break;
      who = who & o->threadgroupReadsSettled(word * 4);
    }
    uint32_t code = who.who == SettledReads::Everyone ? (1u << kKeyWhoBits) - 1
                    : who.who == SettledReads::Simdgroup ? who.simdgroup + 1
                                                         : 0;
    readTags_[word] = code ? (readGeneration_ << kKeyWhoBits) | code : 0;
  }
}

ThreadIdentity ThreadgroupScheduler::identity(const SimThread& t) const {
  return {group_, groupSize_, groupLinear_, t.linear};
}

bool ThreadgroupScheduler::access(uintptr_t address, uint64_t size, uint32_t site, const uint8_t* newValue) {
  if (observers_.empty() || !current_) return true;
  if (settlesReads_ && readSettled(address, size, site)) return true;
  const DispatchFacts& facts = dispatch_.facts;
  MemoryAccess a;
  a.address = address;
  a.size = size;
  a.siteIndex = site;
  a.site = &(*dispatch_.kernel.sites)[site];
  a.newValue = newValue;
  uintptr_t arena = reinterpret_cast<uintptr_t>(arena_.data());
  // The allocation the site's pointer comes from, where the address is in it; else a search.
  const SiteAllocation& at = facts.siteAllocations[site];
  if (address >= arena && address < arena + arena_.size()) {
    a.target = MemoryAccess::Target::Threadgroup;
    a.arenaOffset = address - arena;
    const ThreadgroupVariable* v = at.variable;
    const MemoryRegion* r = at.threadgroupArgument;
    if (v && a.arenaOffset >= v->offset && a.arenaOffset < v->offset + v->size) {
      a.variable = v;
    } else if (r && a.arenaOffset >= r->begin && a.arenaOffset < r->end) {
      a.region = r;
    } else {
      for (auto& v : dispatch_.kernel.threadgroupVariables)
        if (a.arenaOffset >= v.offset && a.arenaOffset < v.offset + v.size) a.variable = &v;
      for (auto& r : facts.threadgroupArguments)
        if (a.arenaOffset >= r.begin && a.arenaOffset < r.end) a.region = &r;
    }
  } else if (at.buffer && address >= at.buffer->begin && address < at.buffer->end) {
    a.target = MemoryAccess::Target::Buffer;
    a.region = at.buffer;
  } else {
    for (auto& r : facts.buffers)
      if (address >= r.begin && address < r.end) {
        a.target = MemoryAccess::Target::Buffer;
        a.region = &r;
        break;
      }
    if (a.target == MemoryAccess::Target::Unknown) {
      // Thread-private memory the IR could not prove private (a pointer into the stack).
      // This hook's frame, not a local's address: AddressSanitizer may move locals to a heap
      // "fake stack".
      uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
      if (isPrivateFrame(address, size)) {
        a.target = MemoryAccess::Target::Private;
      } else if (current_->stack) {
        uintptr_t top = reinterpret_cast<uintptr_t>(current_->stack->top());
        if (address < top && address + FiberStack::kSize >= top) a.target = MemoryAccess::Target::Private;
      } else if (address >= tStackLow && address < here) {
        a.target = MemoryAccess::Target::Private;  // below this hook's frame: a kernel frame or free
      } else if (address >= here && address + size <= tKernelFramesTop) {
        a.target = MemoryAccess::Target::Private;  // the kernel's own frames, below the scheduler's
      }
    }
  }
  if (a.target == MemoryAccess::Target::Private) return true;
  ThreadIdentity who = identity(*current_);
  for (auto& o : observers_) o->access(who, a);
  if (settlesReads_ && a.target == MemoryAccess::Target::Threadgroup) settleReads(a.arenaOffset, size);
  return !a.suppress;
}

void ThreadgroupScheduler::privateOverrun(uintptr_t address, uint64_t size, uint32_t site, uintptr_t base) {
  if (observers_.empty() || !current_) return;
  MemoryAccess a;
  a.address = address;
  a.size = size;
  a.siteIndex = site;
  a.site = &(*dispatch_.kernel.sites)[site];
  a.target = MemoryAccess::Target::PrivateArray;
  a.privateOffset = int64_t(address - base);
  ThreadIdentity who = identity(*current_);
  for (auto& o : observers_) o->access(who, a);
}

void ThreadgroupScheduler::runSequentially(Size3 group, Size3 size, uint32_t count) {
  // No barrier or SIMD-group function can be reached: run the threads one after another, reusing
  // one thread record.
  threads_.resize(1);
  SimThread& t = threads_[0];
  t.state = ThreadState::Runnable;
  t.stack = nullptr;
  // The bound arguments change only with the arena's address (threadgroup arguments point into it).
  if (sequentialArena_ != arena() || t.args.empty()) {
    bindArguments(t);
    sequentialArena_ = arena();
  }
  current_ = &t;
  if (dispatch_.kernel.threadLoop && dispatch_.request.options.schedule.order == Schedule::Order::InOrder) {
    // The JIT's loop over the threadgroup, from thread 0's arguments. A checked kernel's loop
    // records which thread runs (enter() follows it); an unchecked one's does not, so a fault
    // names the threadgroup, not a thread.
    t.linear = 0;
    t.local = {0, 0, 0};
    writeBuiltins(t, group, size);
    setOwnReadKey(0);
    regionThread_ = 0;
    threadLoopMode_ = dispatch_.kernel.instrumented;
    if (!threadLoopMode_) current_ = nullptr;
    dispatch_.kernel.threadLoop(t.args.data(), size[0], size[1], size[2], &regionThread_);
    threadLoopMode_ = false;
    return;
  }
  arrangeOrder(count);
  bool first = true;
  for (uint32_t i : order_) {
    t.linear = i;
    t.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    setOwnReadKey(i);
    writeBuiltins(t, group, size, /*varyingOnly=*/!first);
    first = false;
    dispatch_.kernel.entry(t.args.data());
  }
}

void ThreadgroupScheduler::moveToLoopThread() {
  SimThread& t = *current_;
  uint32_t i = regionThread_;
  t.linear = i;
  t.local = {i % groupSize_[0], i / groupSize_[0] % groupSize_[1], i / (groupSize_[0] * groupSize_[1])};
  setOwnReadKey(i);
}

// Thread records, with their argument vectors, are reused from one threadgroup to the next.
void ThreadgroupScheduler::prepareThreads(Size3 group, Size3 size, uint32_t count) {
  threads_.resize(count);
  bool fibers = scheduling_ == ThreadScheduling::Fibers;
  if (fibers)
    while (stacks_.size() < count) stacks_.push_back(std::make_unique<FiberStack>());
  for (uint32_t i = 0; i < count; ++i) {
    SimThread& t = threads_[i];
    t.linear = i;
    t.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    t.state = ThreadState::Runnable;
    t.coroutine = nullptr;
    t.scheduler = nullptr;
    t.context = fibers ? make_fcontext(stacks_[i]->top(), FiberStack::kSize, &fiberMain) : nullptr;
    t.stack = fibers ? stacks_[i].get() : nullptr;
    t.flags = t.size = t.resultMask = 0;
    t.loops.clear();
    if (fibers) {
      bindArguments(t);
      writeBuiltins(t, group, size);
    }
  }
  if (!fibers) prepareStarter(group, size);
}

// A coroutine reads its arguments only when it starts: all start from one argument set, whose
// per-thread built-ins are rewritten before each start.
void ThreadgroupScheduler::prepareStarter(Size3 group, Size3 size) {
  starter_.linear = 0;
  starter_.local = {0, 0, 0};
  starter_.stack = nullptr;
  bindArguments(starter_);
  writeBuiltins(starter_, group, size);
}

// Runs `t` until it blocks at a barrier or SIMD-group function, or finishes.
void ThreadgroupScheduler::resume(SimThread& t) {
  if (scheduling_ == ThreadScheduling::Coroutines) {
    using Resume = void (*)(void* handle);
    frameOwner_ = t.linear;
    if (!t.coroutine) {
      starter_.linear = t.linear;
      starter_.local = t.local;
      writeBuiltins(starter_, group_, groupSize_, /*varyingOnly=*/true);
      t.coroutine = reinterpret_cast<CoroutineEntryFunction>(dispatch_.kernel.entry)(starter_.args.data());
    } else
      (*static_cast<Resume*>(t.coroutine))(t.coroutine);
    // A coroutine at its final suspension has no resume function.
    if (*static_cast<Resume*>(t.coroutine) == nullptr) t.state = ThreadState::Done;
    return;
  }
  transfer_t back = jump_fcontext(t.context, &t);
  t.context = back.fctx;
}

void* ThreadgroupScheduler::coroutineFrames(uint64_t size) {
  if (__builtin_expect(!framesReady_, 0)) allocateFrames(size);
  return frames_.get();
}

void* ThreadgroupScheduler::coroutineFrame(uint64_t size) {
  // Every thread asks for the same size; the first request of a threadgroup, made before any
  // frame is live, sizes the storage for all of them.
  if (__builtin_expect(!framesReady_, 0)) allocateFrames(size);
  char* frame = frames_.get() + frameStride_ * frameOwner_++;  // runRegions starts threads in order
  // No resume function yet (a frame always begins with the resume and destroy pointers).
  reinterpret_cast<void**>(frame)[0] = nullptr;
  reinterpret_cast<void**>(frame)[1] = nullptr;
  return frame;
}

void ThreadgroupScheduler::allocateFrames(uint64_t size) {
  // The frame holds what a thread keeps across barriers, its private arrays among them: give it
  // no more than a fiber's stack, so both ways of running a kernel agree on what fits.
  if (size > FiberStack::kSize) {
    dispatch_.report({Finding::Severity::Error, "stack-overflow",
                      "thread " + std::to_string(frameOwner_) + " (index in threadgroup) of threadgroup (" +
                          std::to_string(group_[0]) + "," + std::to_string(group_[1]) + "," + std::to_string(group_[2]) +
                          ") needs " + std::to_string(size / 1024) +
                          " KiB of private memory, more than the " + std::to_string(FiberStack::kSize / 1024) +
                          " KiB mslsim gives each thread: its private (thread) arrays are too large",
                      {}});
    siglongjmp(escape_, 1);
  }
  uint64_t stride = coroutineFrameStride(size);
  uint64_t bytes = stride * frameCount_;
  if (bytes > frameCapacity_) {
    frames_.reset(static_cast<char*>(std::aligned_alloc(kCoroutineFrameAlignment, bytes)));
    if (!frames_) throw std::bad_alloc();
    frameCapacity_ = bytes;
  }
  frameStride_ = stride;
  framesReady_ = true;
}

bool ThreadgroupScheduler::isPrivateFrame(uintptr_t address, uint64_t size) const {
  if (scheduling_ != ThreadScheduling::Coroutines || !frames_) return false;
  uintptr_t begin = reinterpret_cast<uintptr_t>(frames_.get());
  return address >= begin && address + size <= begin + frameStride_ * frameCount_;
}

void ThreadgroupScheduler::runThreads(Size3 group, Size3 size, uint32_t count) {
  frameCount_ = count;
  if (scheduling_ == ThreadScheduling::Sequential) return runSequentially(group, size, count);
  // Unchecked barrier-only kernels in the default order: the JIT'd region loop (see runRegions).
  // Not under the sync check, which names the barriers' lines and the threads that returned
  // before one (the region loop sees neither).
  if (dispatch_.kernel.regionLoop && dispatch_.request.options.schedule.order == Schedule::Order::InOrder) {
    if (observers_.empty() && !dispatch_.facts.checks.sync) return runRegions(group, size, count);
    // Checked: barrier-only kernels whose barriers the frames name, as the hooks would.
    const RegionLoopLayout& layout = *dispatch_.kernel.regionLoopLayout;
    if (!layout.recordsThreads && !layout.barriers.empty()) return runCheckedRegions(group, size, count);
  }
  prepareThreads(group, size, count);
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
  random_.seed(dispatch_.request.options.schedule.seed * 0x9E3779B97F4A7C15ull + groupLinear_);
  bool reshuffle = dispatch_.request.options.schedule.order == Schedule::Order::Random;
  arrangeOrder(count);
  for (;;) {
    bool ranAny = false;
    if (reshuffle) arrangeOrder(count);
    for (uint32_t index : order_) {
      SimThread& t = threads_[index];
      if (t.state != ThreadState::Runnable) continue;
      ranAny = true;
      current_ = &t;
      setOwnReadKey(t.linear);
      resume(t);
      current_ = nullptr;
      if (dispatch_.cancelled) break;
    }
    if (dispatch_.cancelled || dispatch_.stops(tGroupOrder)) break;
    if (ranAny) continue;
    // Every thread is blocked or finished: release what can be released.
    if (atSimdCollective_ && resolveSimdGroups()) continue;
    if (!resolveBarrier(group)) break;
  }
}

// Each thread starts its coroutine, in order, and runs to its first synchronisation point; then each
// call of the region loop runs the next region of every runnable thread.
void ThreadgroupScheduler::runRegions(Size3 group, Size3 size, uint32_t count) {
  const RegionLoopLayout& layout = *dispatch_.kernel.regionLoopLayout;
  if (layout.recordsThreads)
    prepareThreads(group, size, count);  // the records, and the arguments threads start from
  else
    prepareStarter(group, size);
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
  current_ = nullptr;
  regionMode_ = layout.recordsThreads;  // the hooks record the waits of threads_[regionThread_]
  frameOwner_ = 0;                      // each coroutine start takes the next frame
  // The JIT'd loop over the threads' starts (built with every region loop).
  dispatch_.kernel.threadLoop(starter_.args.data(), size[0], size[1], size[2], &regionThread_);
  runnable_.assign(count, 1);
  if (!layout.recordsThreads) {
    // Barrier-only: every unfinished thread runs each region; the loop itself says whether they
    // stopped at one barrier (the frames name the threads when they did not).
    if (!sameBarrier(layout, group, size, count)) return;
    while (!dispatch_.cancelled && !dispatch_.stops(tGroupOrder)) {
      uint32_t status = dispatch_.kernel.regionLoop(frames_.get(), frameStride_, count, runnable_.data(), &regionThread_);
      if (status & 2) sameBarrier(layout, group, size, count);  // reports the divergence
      if (status != 1) return;
    }
    return;
  }
  auto finished = [&](uint32_t i) {
    return *reinterpret_cast<void* const*>(frames_.get() + uint64_t(i) * frameStride_) == nullptr;
  };
  while (!dispatch_.cancelled && !dispatch_.stops(tGroupOrder)) {
    // The hooks said where each thread waits; a thread still runnable has finished.
    for (uint32_t i = 0; i < count; ++i)
      if (threads_[i].state == ThreadState::Runnable && finished(i)) threads_[i].state = ThreadState::Done;
    if (!(atSimdCollective_ && resolveSimdGroups()) && !resolveBarrier(group)) break;
    for (uint32_t i = 0; i < count; ++i) runnable_[i] = threads_[i].state == ThreadState::Runnable;
    dispatch_.kernel.regionLoop(frames_.get(), frameStride_, count, runnable_.data(), &regionThread_);
  }
  regionMode_ = false;
}

// Barrier-only kernels under checks: the region loop runs each region of every thread, and the
// frames say where each thread waits (RegionLoopLayout::barriers), so that a barrier is released,
// or a divergence reported, as resolveBarrier does it for threads that ran as coroutines. The
// loop stores each thread's index before resuming it: the checks' hooks name that thread.
void ThreadgroupScheduler::runCheckedRegions(Size3 group, Size3 size, uint32_t count) {
  const RegionLoopLayout& layout = *dispatch_.kernel.regionLoopLayout;
  // One barrier may have several suspension points (a loop unrolled around it): by index, the
  // first index of the same barrier. Once per kernel, not per region.
  if (barrierOfSuspension_.size() != layout.barriers.size()) {
    const std::vector<RegionBarrier>& barriers = layout.barriers;
    barrierOfSuspension_.resize(barriers.size());
    for (uint32_t i = 0; i < barriers.size(); ++i) {
      barrierOfSuspension_[i] = i;
      for (uint32_t j = 0; j < i; ++j)
        if (barriers[j].line == barriers[i].line && barriers[j].column == barriers[i].column &&
            barriers[j].file == barriers[i].file) {
          barrierOfSuspension_[i] = j;
          break;
        }
    }
  }
  prepareThreads(group, size, count);  // thread records for the hooks; the starts' arguments
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
  current_ = nullptr;
  regionMode_ = true;
  frameOwner_ = 0;
  dispatch_.kernel.threadLoop(starter_.args.data(), size[0], size[1], size[2], &regionThread_);
  runnable_.assign(count, 0);
  while (!dispatch_.cancelled && !dispatch_.stops(tGroupOrder) && releaseBarrierFromFrames(layout, group, count))
    dispatch_.kernel.regionLoop(frames_.get(), frameStride_, count, runnable_.data(), &regionThread_);
  regionMode_ = false;
  current_ = nullptr;
}

uint32_t ThreadgroupScheduler::suspensionIndex(const RegionLoopLayout& layout, uint32_t thread) const {
  const char* field = frames_.get() + uint64_t(thread) * frameStride_ + layout.indexOffset;
  uint32_t index = layout.indexBytes == 1   ? uint32_t(*reinterpret_cast<const uint8_t*>(field))
                   : layout.indexBytes == 2 ? uint32_t(*reinterpret_cast<const uint16_t*>(field))
                                            : *reinterpret_cast<const uint32_t*>(field);
  return index & layout.indexMask;
}

Finding ThreadgroupScheduler::barriersDiffer(Size3 group, CallSite a, const SimThread& firstAtA, size_t atA, CallSite b,
                                             const SimThread& firstAtB, size_t atB) const {
  return {Finding::Severity::Error, "barrier-divergence",
          "threads of one threadgroup wait at different barriers: " + describeThread(firstAtA, group) + " (and " +
              std::to_string(atA - 1) + " more) at line " + std::to_string(a.line) + ", " +
              describeThread(firstAtB, group) + " (and " + std::to_string(atB - 1) + " more) at line " +
              std::to_string(b.line),
          {a.position(), b.position()}};
}

Finding ThreadgroupScheduler::barrierSkipped(Size3 group, CallSite site, uint32_t returned, uint32_t count,
                                             const SimThread& firstReturned) const {
  return {Finding::Severity::Warning, "barrier-divergence",
          std::to_string(returned) + " of " + std::to_string(count) +
              " threads returned without reaching this threadgroup_barrier (first: " +
              describeThread(firstReturned, group) +
              "); Apple GPUs let the others pass, but the MSL specification requires every thread of the "
              "threadgroup to reach it",
          {site.position()}};
}

// What resolveBarrier does, with where each thread waits read from its frame.
bool ThreadgroupScheduler::releaseBarrierFromFrames(const RegionLoopLayout& layout, Size3 group, uint32_t count) {
  const std::vector<RegionBarrier>& barriers = layout.barriers;
  const std::vector<uint32_t>& sameAs = barrierOfSuspension_;
  const uint32_t known = uint32_t(sameAs.size());
  uint32_t done = 0, waiting = 0, site = 0;
  const SimThread* returned = nullptr;
  bool differ = false;
  for (uint32_t i = 0; i < count; ++i) {
    SimThread& t = threads_[i];
    if (*reinterpret_cast<void* const*>(frames_.get() + uint64_t(i) * frameStride_) == nullptr) {
      t.state = ThreadState::Done;
      runnable_[i] = 0;
      if (!returned) returned = &t;
      ++done;
      continue;
    }
    uint32_t index = layout.indexMask ? suspensionIndex(layout, i) : 0;
    if (index >= known) return false;  // not a suspension point the layout knows
    if (waiting++ == 0) site = sameAs[index];
    else differ |= sameAs[index] != site;
    t.state = ThreadState::Runnable;
    runnable_[i] = 1;
  }
  if (!waiting) return false;
  auto callSite = [&](uint32_t index) {
    const RegionBarrier& b = barriers[index];
    return CallSite{b.file.c_str(), b.line, b.column};
  };
  if (differ) {
    std::map<CallSite, std::vector<uint32_t>> at;
    for (uint32_t i = 0; i < count; ++i)
      if (runnable_[i]) at[callSite(sameAs[suspensionIndex(layout, i)])].push_back(i);
    auto a = at.begin(), b = std::next(a);
    dispatch_.report(barriersDiffer(group, a->first, threads_[a->second[0]], a->second.size(), b->first,
                                    threads_[b->second[0]], b->second.size()));
    return false;
  }
  if (done > 0 && dispatch_.facts.checks.sync) dispatch_.report(barrierSkipped(group, callSite(site), done, count, *returned));
  for (auto& o : observers_) o->threadgroupBarrier(barriers[site].flags);
  newReadGeneration();
  return true;
}

// Barrier-only kernels: whether every unfinished thread waits at the same barrier (read from the
// frames); false when all have finished, or (reported) when they wait at different barriers.
bool ThreadgroupScheduler::sameBarrier(const RegionLoopLayout& layout, Size3 group, Size3 size, uint32_t count) {
  auto describe = [&](uint32_t i) {
    SimThread who;
    who.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    return describeThread(who, group);
  };
  bool any = false;
  uint32_t firstIndex = 0, at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const char* frame = frames_.get() + uint64_t(i) * frameStride_;
    if (*reinterpret_cast<void* const*>(frame) == nullptr) continue;  // finished
    uint32_t index = suspensionIndex(layout, i);
    if (!any) {
      any = true;
      firstIndex = i;
      at = index;
    } else if (index != at) {
      dispatch_.report({Finding::Severity::Error, "barrier-divergence",
                        "threads of one threadgroup wait at different barriers: " + describe(firstIndex) +
                            " and " + describe(i) + " (run with --check sync for the source lines)",
                        {}});
      return false;
    }
  }
  return any;
}

void ThreadgroupScheduler::arrangeOrder(uint32_t count) {
  order_.resize(count);
  std::iota(order_.begin(), order_.end(), 0u);
  switch (dispatch_.request.options.schedule.order) {
    case Schedule::Order::InOrder: break;
    case Schedule::Order::Reverse: std::reverse(order_.begin(), order_.end()); break;
    case Schedule::Order::Random: std::shuffle(order_.begin(), order_.end(), random_); break;
  }
}

// The size of the calling thread's stack if `address` is in the guard area just below it (where
// a stack overflow faults), else 0.
size_t belowThisThreadsStack(const void* address) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* low = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  auto a = reinterpret_cast<uintptr_t>(address), base = reinterpret_cast<uintptr_t>(low);
  return a < base + 4096 && a + 256 * 1024 >= base ? size : 0;
}

void ThreadgroupScheduler::reportFault(Size3 group) {
  enter();  // a checked thread loop knows the thread that faulted
  std::string who = current_ ? describeThread(*current_, group)
                             : "a thread of threadgroup (" + std::to_string(group[0]) + "," + std::to_string(group[1]) +
                                   "," + std::to_string(group[2]) + ")";
  char address[32];
  std::snprintf(address, sizeof address, "%p", tFault.address);
  Finding f{Finding::Severity::Error, "", "", {}};
  if (tFault.signal == SIGFPE) {
    f.kind = "integer-division-by-zero";
    f.message = who + " divided an integer by zero (or INT_MIN by -1); x86 traps where an Apple "
                      "GPU returns an unspecified value";
  } else if (current_ && current_->stack && current_->stack->isGuardPage(tFault.address)) {
    f.kind = "stack-overflow";
    f.message = who + " overflowed its " + std::to_string(FiberStack::kSize / 1024) +
                " KiB stack: its private (thread) arrays or recursion are too large";
  } else if (size_t stack = belowThisThreadsStack(tFault.address)) {
    // Kernels that never synchronise run on the worker's own stack.
    f.kind = "stack-overflow";
    f.message = who + " overflowed its " + std::to_string(stack / 1024) +
                " KiB stack: its private (thread) arrays or recursion are too large";
  } else {
    f.kind = "invalid-memory-access";
    std::string near = describeNearAllocation(reinterpret_cast<uintptr_t>(tFault.address));
    f.message = who + " accessed invalid memory at address " + std::string(address) +
                (near.empty() ? " (outside every buffer and threadgroup allocation mslsim knows of)" : ", " + near);
  }
  dispatch_.report(std::move(f));
}

std::string ThreadgroupScheduler::describeNearAllocation(uintptr_t address) const {
  auto distance = [&](uintptr_t begin, uintptr_t end, const std::string& what) -> std::string {
    if (address >= end && address - end < GuardedMemory::kGuardBytes)
      return std::to_string(address - end) + " bytes past the end of " + what;
    if (address < begin && begin - address <= GuardedMemory::kGuardBytes)
      return std::to_string(begin - address) + " bytes before the start of " + what;
    return "";
  };
  for (const MemoryRegion& r : dispatch_.facts.buffers) {
    std::string what = "buffer " + std::to_string(r.argument->binding) + " ('" + r.argument->name + "')";
    what += " (" + std::to_string(r.end - r.begin) + " bytes)";
    if (std::string near = distance(r.begin, r.end, what); !near.empty()) return near;
  }
  uintptr_t arena = reinterpret_cast<uintptr_t>(arena_.data());
  return distance(arena, arena + arena_.size(), "threadgroup memory (" + std::to_string(arena_.size()) + " bytes)");
}

void ThreadgroupScheduler::fiberMain(transfer_t t) {
  auto* thread = static_cast<SimThread*>(t.data);
  thread->scheduler = t.fctx;
  ThreadgroupScheduler* self = tCurrent;
  self->dispatch_.kernel.entry(thread->args.data());
  thread->state = ThreadState::Done;
  jump_fcontext(thread->scheduler, nullptr);
  __builtin_unreachable();  // a finished fiber is never resumed
}

void ThreadgroupScheduler::block(ThreadState state) {
  SimThread* t = current_;
  t->state = state;
  if (scheduling_ == ThreadScheduling::Coroutines) return;  // it suspends when the hook returns
  transfer_t back = jump_fcontext(t->scheduler, nullptr);
  t->scheduler = back.fctx;
}

void ThreadgroupScheduler::abortCurrentThread(CallSite loop) {
  {  // destroyed before the jumps below, which skip destructors
    SourcePosition where = loop.file ? SourcePosition{loop.file, loop.line, loop.column} : SourcePosition{};
    if (current_) dispatch_.noteStuck({"still running", where, group_, current_->local, current_->linear % kSimdWidth}, true);
    else dispatch_.noteStuck({"still running", where, group_, {}, 0}, false);
  }
  // A thread loop or a coroutine runs on the worker's stack: leave through the escape point (the
  // whole threadgroup is abandoned, as the dispatch is being cancelled anyway).
  if (scheduling_ != ThreadScheduling::Fibers) siglongjmp(escape_, 1);
  SimThread* t = current_;
  t->state = ThreadState::Aborted;
  jump_fcontext(t->scheduler, nullptr);
  __builtin_unreachable();
}

void ThreadgroupScheduler::loopRound(CallSite loop) {
  // The running thread: in the JIT's loops over a threadgroup, the one it says it runs.
  uint32_t linear = current_ ? current_->linear : regionThread_;
  bool spinning = spin_.round(loop, (groupLinear_ << 32) | linear);
  if (!spinning && !spinning_) return;
  std::optional<SpinningThread> thread;
  std::string memory;  // the device and threadgroup memory it polls
  if (spinning) {
    // Its own variables (which the loop may reload from a coroutine frame) are the same every
    // round too, but nobody else could write them: a loop polling only those is endless, not
    // waiting (a timeout).
    for (const SpinWatch::Read& r : spin_.polled()) {
      std::string place = describeMemory(r.address, r.size);
      if (place.empty()) continue;
      place += " (value " + std::to_string(r.value) + ")";
      if (memory.find(place) == std::string::npos) memory += (memory.empty() ? "" : ", ") + place;
    }
    spinning = !memory.empty();
  }
  if (spinning) {
    Size3 local{linear % groupSize_[0], linear / groupSize_[0] % groupSize_[1], linear / (groupSize_[0] * groupSize_[1])};
    SourcePosition where = loop.file ? dispatch_.kernel.sources ? dispatch_.kernel.sources->map(loop.file, loop.line, loop.column)
                                                                : loop.position()
                                     : SourcePosition{};
    thread = SpinningThread{{"waiting in a loop", where, group_, local, linear % kSimdWidth}, memory};
  }
  spinning_ = spinning;
  if (dispatch_.spinning(this, std::move(thread))) abortCurrentThread(loop);
}

std::string ThreadgroupScheduler::describeMemory(uintptr_t address, uint64_t size) const {
  // Named as every other finding names memory (MemoryRegion::describe).
  uintptr_t arena = reinterpret_cast<uintptr_t>(arena_.data());
  if (address >= arena && address < arena + arena_.size()) {
    uint64_t offset = address - arena;
    for (const ThreadgroupVariable& v : dispatch_.kernel.threadgroupVariables)
      if (offset >= v.offset && offset < v.offset + v.size)
        return "threadgroup variable '" + v.name + "'" +
               (v.size > v.elementSize ? "[" + std::to_string((offset - v.offset) / v.elementSize) + "]" : "");
    for (const MemoryRegion& r : dispatch_.facts.threadgroupArguments)
      if (offset >= r.begin && offset < r.end) return r.describe(offset, size);
    return "threadgroup memory at byte " + std::to_string(offset);
  }
  for (const MemoryRegion& r : dispatch_.facts.buffers)
    if (address >= r.begin && address < r.end) return r.describe(address, size);
  return "";  // thread-private
}

void ThreadgroupScheduler::threadgroupBarrier(unsigned flags, const char* file, unsigned line, unsigned column) {
  if (scheduling_ == ThreadScheduling::Sequential || !current_) return;
  CallSite& site = current_->site;
  site.file = file;
  site.line = line;
  site.column = column;
  current_->flags = flags;
  if (atBarrier_++ == 0) {
    barrierSite_.file = file;
    barrierSite_.line = line;
    barrierSite_.column = column;
    barrierFlags_ = 0;
  } else if (!(file == barrierSite_.file && line == barrierSite_.line && column == barrierSite_.column) &&
             !(site == barrierSite_)) {  // compared from the arguments first, for the same reason
    barrierSitesDiffer_ = true;
  }
  barrierFlags_ |= flags;
  block(ThreadState::AtThreadgroupBarrier);
}

unsigned ThreadgroupScheduler::simdExchange(const void* value, void* lanes, unsigned size, const char* file,
                                            unsigned line, unsigned column) {
  if (scheduling_ == ThreadScheduling::Sequential || !current_) {  // not reachable when the kernel was classified correctly
    if (size) std::memcpy(static_cast<char*>(lanes) + lane() * size, value, size);
    return 1u << lane();
  }
  SimThread* t = current_;
  t->site.file = file;
  t->site.line = line;
  t->site.column = column;
  // A copy: a suspended coroutine's temporaries are gone (its lanes buffer, read after the
  // resume, lives in its frame).
  t->contribution.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
  t->lanes = lanes;
  t->size = size;
  ++atSimdCollective_;
  block(ThreadState::AtSimdCollective);
  return t->resultMask;
}

namespace {
// Whether lane `a`, waiting at a SIMD-group call, is behind lane `b` (runs first on the GPU, the
// other lanes waiting to reconverge): in fewer iterations of a loop both are in, or else earlier
// in the source (lanes still inside a loop are behind lanes that already left it, and the GPU runs
// the loop to its end before the lanes reconverge).
bool behind(const SimThread& a, const SimThread& b) {
  size_t common = std::min(a.loops.size(), b.loops.size());
  for (size_t k = 0; k < common && a.loops[k].first == b.loops[k].first; ++k)
    if (a.loops[k].second != b.loops[k].second) return a.loops[k].second < b.loops[k].second;
  return a.site < b.site;
}
}  // namespace

// Lanes of a SIMD-group waiting at SIMD-group functions form one collective per call site and
// loop iteration (lanes in different branches of an if/else are different active sets, as on the
// GPU). When several wait, the lanes that are behind go first (see `behind`).
bool ThreadgroupScheduler::resolveSimdGroups() {
  bool resolved = false;
  uint32_t count = uint32_t(threads_.size());
  for (uint32_t first = 0; first < count; first += kSimdWidth) {
    uint32_t last = std::min(count, first + kSimdWidth);
    const SimThread* earliest = nullptr;
    for (uint32_t i = first; i < last; ++i)
      if (threads_[i].state == ThreadState::AtSimdCollective && (!earliest || behind(threads_[i], *earliest)))
        earliest = &threads_[i];
    if (!earliest) continue;
    CallSite site = earliest->site;
    const std::vector<std::pair<uint32_t, uint32_t>> loops = earliest->loops;
    unsigned mask = 0, size = 0;
    bool mismatch = false;
    for (uint32_t i = first; i < last; ++i) {
      SimThread& t = threads_[i];
      if (t.state != ThreadState::AtSimdCollective || !(t.site == site) || t.loops != loops) continue;
      if (mask && t.size != size) mismatch = true;
      size = t.size;
      mask |= 1u << (i - first);
    }
    if (mismatch) {
      dispatch_.report({Finding::Severity::Error, "simd-size-mismatch",
                        "lanes of one SIMD-group called a SIMD-group function with values of "
                        "different sizes at the same call site",
                        {site.position()}});
      return false;
    }
    // All contributions are gathered into the first active lane's buffer, which is then copied
    // whole to the others (entries of inactive lanes are never read).
    const char* gathered = nullptr;
    for (uint32_t i = first; i < last; ++i) {
      SimThread& t = threads_[i];
      if (!(mask & (1u << (i - first)))) continue;
      if (size && !gathered) {
        for (uint32_t j = first; j < last; ++j)
          if (mask & (1u << (j - first)))
            std::memcpy(static_cast<char*>(t.lanes) + (j - first) * size, threads_[j].contribution.data(), size);
        gathered = static_cast<const char*>(t.lanes);
      } else if (size) {
        std::memcpy(t.lanes, gathered, size_t(size) * (last - first));
      }
      t.resultMask = mask;
      t.state = ThreadState::Runnable;
      --atSimdCollective_;
    }
    if (size == 0) {
      for (auto& o : observers_) o->simdgroupBarrier(first / kSimdWidth);
      newReadGeneration();
    }
    for (auto& o : observers_) o->simdCollective(first / kSimdWidth, mask, site.position());
    // A SIMD-group function that only some lanes of a full SIMD-group call.
    if (size > 0 && dispatch_.facts.checks.simd && last - first == kSimdWidth && mask != 0xFFFFFFFFu) {
      Finding f;
      f.severity = Finding::Severity::Warning;
      f.kind = "simd-divergence";
      f.message = "only " + std::to_string(__builtin_popcount(mask)) + " of the 32 lanes of SIMD-group " +
                  std::to_string(first / kSimdWidth) +
                  " take part in this SIMD-group function (the others returned or are in another "
                  "branch); its result covers only those lanes";
      f.locations.push_back(site.position());
      f.accesses.push_back({"SIMD-group function call", site.position(), group_, threads_[first + __builtin_ctz(mask)].local,
                            uint32_t(__builtin_ctz(mask))});
      dispatch_.report(std::move(f));
    }
    resolved = true;
  }
  return resolved;
}

std::string ThreadgroupScheduler::describeThread(const SimThread& t, Size3 group) const {
  return "thread (" + std::to_string(t.local[0]) + "," + std::to_string(t.local[1]) + "," +
         std::to_string(t.local[2]) + ") of threadgroup (" + std::to_string(group[0]) + "," +
         std::to_string(group[1]) + "," + std::to_string(group[2]) + ")";
}

// All threads are at threadgroup barriers or finished. Returns false when the threadgroup is done.
bool ThreadgroupScheduler::resolveBarrier(Size3 group) {
  if (atBarrier_ == threads_.size() && !barrierSitesDiffer_) {
    // Every thread at the same barrier: the usual case.
    for (auto& t : threads_) t.state = ThreadState::Runnable;
    atBarrier_ = 0;
    for (auto& o : observers_) o->threadgroupBarrier(barrierFlags_);
    newReadGeneration();
    return true;
  }
  const SimThread* firstWaiting = nullptr;
  bool oneBarrier = true;
  uint32_t done = 0;
  for (auto& t : threads_) {
    if (t.state == ThreadState::Done) ++done;
    if (t.state != ThreadState::AtThreadgroupBarrier) continue;
    if (!firstWaiting)
      firstWaiting = &t;
    else if (!(t.site == firstWaiting->site))
      oneBarrier = false;
  }
  if (!firstWaiting) return false;
  if (!oneBarrier) {
    std::map<CallSite, std::vector<const SimThread*>> waiting;
    for (auto& t : threads_)
      if (t.state == ThreadState::AtThreadgroupBarrier) waiting[t.site].push_back(&t);
    auto a = waiting.begin(), b = std::next(a);
    dispatch_.report(barriersDiffer(group, a->first, *a->second[0], a->second.size(), b->first, *b->second[0],
                                    b->second.size()));
    return false;
  }
  const CallSite site = firstWaiting->site;
  if (done > 0 && dispatch_.facts.checks.sync) {
    const SimThread* returned = nullptr;
    for (auto& t : threads_)
      if (t.state == ThreadState::Done) {
        returned = &t;
        break;
      }
    dispatch_.report(barrierSkipped(group, site, done, uint32_t(threads_.size()), *returned));
  }
  unsigned flags = 0;
  for (auto& t : threads_)
    if (t.state == ThreadState::AtThreadgroupBarrier) {
      flags |= t.flags;
      t.state = ThreadState::Runnable;
    }
  atBarrier_ = 0;
  barrierSitesDiffer_ = false;
  for (auto& o : observers_) o->threadgroupBarrier(flags);
  newReadGeneration();
  return true;
}

// ---------------------------------------------------------------------------------------------

std::atomic<uint32_t>& cancelFlag() {
  static std::atomic<uint32_t> flag{0};
  return flag;
}
thread_local DispatchState* tDispatch = nullptr;
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
  scheduler.setObservers(std::move(observers));
  uint64_t total = state.geometry.totalThreadgroups();
  // Threadgroups are taken a few at a time: one shared counter per threadgroup costs more than a
  // small threadgroup's work when the workers contend for it. Batches stay small enough to share
  // the work evenly.
  uint64_t batch = std::clamp<uint64_t>(total / (64 * std::max(1u, state.workers)), 1, 16);
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

namespace {
DispatchResult runDispatch(const DispatchRequest& request, const InactiveLaneFill& inactiveLaneFill);
}

DispatchResult dispatch(const DispatchRequest& request) {
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

namespace {
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

// ---------------------------------------------------------------------------------------------
// Hooks called by the standard library (see frontend/include/metal/__mslsim/hooks.h).

extern "C" {
void __mslsim_threadgroup_barrier(unsigned flags, const char* file, unsigned line, unsigned column) {
  if (tCurrent) tCurrent->enter()->threadgroupBarrier(flags, file, line, column);
}
void __mslsim_simdgroup_barrier(unsigned flags, const char* file, unsigned line, unsigned column) {
  if (tCurrent) tCurrent->enter()->simdExchange(nullptr, nullptr, 0, file, line, column);
}
unsigned __mslsim_simd_exchange(const void* value, void* lanes, unsigned size, const char* file,
                                unsigned line, unsigned column) {
  return tCurrent ? tCurrent->enter()->simdExchange(value, lanes, size, file, line, column) : 1u;
}
unsigned __mslsim_simd_lane(void) { return tCurrent ? tCurrent->enter()->lane() : 0; }
unsigned __mslsim_simd_result(void) { return tCurrent ? tCurrent->enter()->simdResult() : 0; }
void* __mslsim_coroutine_frame(uint64_t size) { return tCurrent->coroutineFrame(size); }
void* __mslsim_coroutine_frames(uint64_t size) { return tCurrent->coroutineFrames(size); }
const void* __mslsim_access_filter(void) { return tCurrent->accessFilter(); }
void* __mslsim_threadgroup_arena(void) { return tCurrent ? tCurrent->arena() : nullptr; }
unsigned __mslsim_simd_inactive_read(unsigned lane, const char* file, unsigned line, unsigned column) {
  return tCurrent ? tCurrent->enter()->inactiveLaneRead(lane, {file, line, column}) : 0u;
}
unsigned __mslsim_access(void* address, uint64_t size, uint32_t site, const void* newValue) {
  return tCurrent ? tCurrent->enter()->access(reinterpret_cast<uintptr_t>(address), size, site,
                                              static_cast<const uint8_t*>(newValue))
                  : 1u;
}
void __mslsim_private_overrun(void* address, uint64_t size, uint32_t site, void* base) {
  if (tCurrent)
    tCurrent->enter()->privateOverrun(reinterpret_cast<uintptr_t>(address), size, site, reinterpret_cast<uintptr_t>(base));
}
void __mslsim_poll(const char* file, unsigned line, unsigned column) {
  if (!tDispatch || !tCurrent) return;
  if (tDispatch->cancelled) tCurrent->enter()->abortCurrentThread({file, line, column});
  if (tDispatch->diagnosing.load(std::memory_order_relaxed)) tCurrent->enter()->loopRound({file, line, column});
}
void __mslsim_loop_enter(unsigned loop, unsigned depth) {
  if (tCurrent) tCurrent->enter()->loopEnter(loop, depth);
}
void __mslsim_loop_next(unsigned depth) {
  if (tCurrent) tCurrent->enter()->loopNext(depth);
}
void __mslsim_loop_depth(unsigned depth) {
  if (tCurrent) tCurrent->enter()->loopDepth(depth);
}
void __mslsim_poll_read(const void* address, uint64_t value, uint32_t size) {
  if (tDispatch && tCurrent && tDispatch->diagnosing.load(std::memory_order_relaxed))
    tCurrent->enter()->polledRead(reinterpret_cast<uintptr_t>(address), value, size);
}
}

std::vector<RuntimeSymbol> runtimeSymbols() {
  return {
      {"__mslsim_threadgroup_barrier", reinterpret_cast<void*>(&__mslsim_threadgroup_barrier)},
      {"__mslsim_simdgroup_barrier", reinterpret_cast<void*>(&__mslsim_simdgroup_barrier)},
      {"__mslsim_simd_exchange", reinterpret_cast<void*>(&__mslsim_simd_exchange)},
      {"__mslsim_simd_lane", reinterpret_cast<void*>(&__mslsim_simd_lane)},
      {hook::kSimdResult, reinterpret_cast<void*>(&__mslsim_simd_result)},
      {hook::kCoroutineFrame, reinterpret_cast<void*>(&__mslsim_coroutine_frame)},
      {hook::kCoroutineFrames, reinterpret_cast<void*>(&__mslsim_coroutine_frames)},
      {hook::kAccessFilter, reinterpret_cast<void*>(&__mslsim_access_filter)},
      {"__mslsim_threadgroup_arena", reinterpret_cast<void*>(&__mslsim_threadgroup_arena)},
      {"__mslsim_poll", reinterpret_cast<void*>(&__mslsim_poll)},
      {"__mslsim_poll_read", reinterpret_cast<void*>(&__mslsim_poll_read)},
      {hook::kLoopEnter, reinterpret_cast<void*>(&__mslsim_loop_enter)},
      {hook::kLoopNext, reinterpret_cast<void*>(&__mslsim_loop_next)},
      {hook::kLoopDepth, reinterpret_cast<void*>(&__mslsim_loop_depth)},
      {"__mslsim_access", reinterpret_cast<void*>(&__mslsim_access)},
      {hook::kPrivateOverrun, reinterpret_cast<void*>(&__mslsim_private_overrun)},
      {"__mslsim_simd_inactive_read", reinterpret_cast<void*>(&__mslsim_simd_inactive_read)},
      {"__mslsim_cancel_flag", reinterpret_cast<void*>(&cancelFlag())},
  };
}

}  // namespace mslsim
