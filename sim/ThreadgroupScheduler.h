// The execution model's classes, shared by the files that make up the executor (not an API):
// a dispatch's shared state (DispatchState), the scheduler that runs one threadgroup on a worker
// (ThreadgroupScheduler) and its thread records. How a threadgroup's threads run is chosen per
// kernel in ThreadgroupScheduler::runThreads, one file per way (docs/architecture.md,
// "Executor"):
//
//   ThreadLoop.cpp           no barrier or SIMD-group function can be reached: the threads one
//                            after another, or one JIT'd loop over all of them;
//   RegionLoop.cpp           barriers only, default order: each thread a coroutine frame, one
//                            JIT'd loop runs a barrier-to-barrier region of every thread;
//   VectorLanes.cpp          SIMD-group functions, unchecked, default order: each SIMD-group one
//                            call of the kernel's SIMD-group function, its lanes vector lanes;
//   CoroutinesAndFibers.cpp  everything else (SIMD-group functions, schedules that interleave
//                            threads, checks that need the hooks): each thread resumed on its own
//                            until it blocks, as a coroutine or a fiber, and the scheduler
//                            releases barriers and SIMD-group collectives between them.
//
// ThreadgroupScheduler.cpp holds what every path shares (binding, observers, the barrier and
// SIMD-group resolution, fault reports) and the runtime hooks JIT'd code calls; Dispatch.cpp runs
// the workers and the dispatch as a whole.
#pragma once

#include "Executor.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <boost/context/detail/fcontext.hpp>

#include "GuardedMemory.h"
#include "Hooks.h"
#include "InactiveLaneCheck.h"
#include "Observer.h"

// Hidden: nothing here is interposable, so that the compiler inlines across these functions as it
// does within one file (the library is built position-independent, where GCC otherwise keeps
// every call to a global function a call; this was 10-15% of a SIMD-group kernel's time).
#pragma GCC visibility push(hidden)
namespace mslsim::execution {

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
  uint32_t threads = 1;  // the threads it stands for: 1, or a SIMD-group's lanes (VectorLanes.cpp)
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
  // SIMD exchange: this lane's value, where it lies until the exchange is resolved (a fiber's
  // stack keeps it; a coroutine's temporaries are gone once it suspends, so it gets a copy).
  const void* contribution = nullptr;
  std::vector<uint8_t> contributionCopy;
  void* lanes = nullptr;  // and where all 32 contributions go
  uint64_t* product = nullptr;  // a simdgroup_matrix product's exchange: where its result goes
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

// A hardware fault (bad address, integer division by zero, stack overflow) in JIT'd code ends the
// threadgroup with a finding instead of killing the process. The handler (ThreadgroupScheduler.cpp)
// runs on an alternate stack and jumps back to the worker's recovery point.
struct FaultState {
  bool armed = false;
  sigjmp_buf* escape = nullptr;
  int signal = 0;
  void* address = nullptr;
};
// Thread-local state is defined here, inline with a constant initialiser, rather than declared
// extern: a TU that sees only an extern declaration reaches the variable through a wrapper that
// calls its dynamic initialiser if one exists, a weak hidden symbol that Clang's sanitizer builds
// cannot link into the shared library.
inline thread_local FaultState tFault;
void installFaultHandlers();

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
                        unsigned column, uint64_t* product = nullptr);  // the call site as three values, as for threadgroupBarrier
  // Called by the hooks first: in region mode, the thread the JIT'd loop says is running; in a
  // checked thread loop, the one thread record becomes the thread the loop is at.
  ThreadgroupScheduler* enter() {
    if (regionMode_)
      current_ = &threads_[regionThread_];
    else if (threadLoopMode_ && current_->linear != regionThread_) moveToLoopThread();
    return this;
  }
  unsigned lane() const { return current_ ? current_->linear % kSimdWidth : 0; }
  unsigned runningThread() const { return current_ ? current_->linear : 0; }
  unsigned simdResult() const { return current_ ? current_->resultMask : 0; }
  void* coroutineFrame(uint64_t size, uint64_t align);
  void* coroutineFrames(uint64_t size, uint64_t align);
  void allocateFrames(uint64_t size, uint64_t align);
  char* arena() { return reinterpret_cast<char*>(arena_.data()); }
  // The dispatch was cancelled (timeout): abandon the running thread, which polled in `loop`.
  [[noreturn]] void abortCurrentThread(CallSite loop);
  // While the dispatch is diagnosed for a deadlock: the running thread is at the header of `loop`,
  // or read `value` at `address` where the loop's exit depends on it.
  void loopRound(CallSite loop);
  void polledRead(uintptr_t address, uint64_t value, uint32_t size) { spin_.read(address, value, size); }
  // The running thread's position in the loops around the SIMD-group call it is about to make
  // (hook::kSimdLoopPosition): `depth` pairs {loop, iterations done}, outermost first.
  void simdLoopPosition(const uint32_t* positions, uint32_t depth) {
    if (!current_) return;
    current_->loops.resize(depth);
    for (uint32_t k = 0; k < depth; ++k) current_->loops[k] = {positions[2 * k], positions[2 * k + 1]};
  }
  // Runs the observers on an access about to happen; false if it must not happen.
  bool access(uintptr_t address, uint64_t size, uint32_t site, const uint8_t* newValue);
  void privateOverrun(uintptr_t address, uint64_t size, uint32_t site, uintptr_t base);
  // Vector lanes: `check` runs as lane `lane` of the running SIMD-group (the SIMD-group's record,
  // named by its first thread, stands for that lane's thread meanwhile), so that what the
  // observers see names the lane's thread.
  template <class Check>
  bool asLane(unsigned lane, Check check) {
    if (!current_) return true;
    const uint32_t first = current_->linear;
    current_->linear = first + lane;
    bool result = check(*this);
    current_->linear = first;
    return result;
  }
  unsigned inactiveLaneRead(unsigned lane, CallSite site);
  void setObservers(std::vector<std::unique_ptr<ExecutionObserver>> observers);
  const void* accessFilter() const { return filter_.data(); }

 private:
  static void fiberMain(transfer_t t);
  void bindArguments(SimThread& t);
  // varyingOnly: those that differ between threads of one threadgroup (the others are written).
  void writeBuiltins(SimThread& t, Size3 group, Size3 groupSize, bool varyingOnly = false);
  // The running thread waits at a barrier or SIMD-group function: a coroutine suspends when the
  // hook returns, a fiber switches back to the scheduler now. Called by the hooks at every wait.
  void block(ThreadState state) {
    SimThread* t = current_;
    t->state = state;
    if (scheduling_ == ThreadScheduling::Coroutines) return;
    transfer_t back = jump_fcontext(t->scheduler, nullptr);
    t->scheduler = back.fctx;
  }
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
  // Observers that need every access (ExecutionObserver::needsEveryAccess), in observers_'s order:
  // the others hear only of accesses that are not MemoryAccess::unremarkable(), and have nothing
  // to say about settled reads.
  std::vector<uint8_t> needsEveryAccess_;
  std::vector<ExecutionObserver*> settlers_;
  // Per access site, the byte range its accesses may touch without the hook (hook::kAccessFilter);
  // threadgroup sites are rebased on the arena at each threadgroup.
  struct FilterRange {
    uint64_t begin = 0, end = 0;
  };
  // Then (hook::kAccessFilter): the settled-read test's entry and the settled ranges.
  std::vector<FilterRange> filter_;
  size_t siteCount_ = 0;
  FilterRange& settledRange(size_t site) { return filter_[siteCount_ + 1 + site]; }
  const FilterRange& settledRange(size_t site) const { return filter_[siteCount_ + 1 + site]; }
  // The kernel's inline test of a settled read (addSettledReadTests) reads the tag of the word at
  // `address` at `tagsBias + (address & ~3)` and compares it with `*keyEveryone` and with the key
  // of the running thread's SIMD-group, from `regionThread_` (as readSettled does).
  void publishSettledReadTest() {
    filter_[siteCount_] = {reinterpret_cast<uintptr_t>(readTags_.data()) - arenaBase_,
                           reinterpret_cast<uintptr_t>(&keyEveryone_)};
    filter_[2 * siteCount_ + 1] = {reinterpret_cast<uintptr_t>(&regionThread_), 0};
  }
  // Store claims (ExecutionObserver::storeClaim): per site, the claim and its buffer's range,
  // published in the table after the settled-read entries while the checked thread loop runs
  // (publishStoreClaims); empty ranges otherwise. The threadgroup's first thread number and the
  // shift come first.
  struct SiteClaim {
    StoreClaim claim;
    uint64_t begin = 0, end = 0;
  };
  std::vector<std::optional<SiteClaim>> storeClaims_;
  bool anyStoreClaim_ = false;
  void publishStoreClaims(bool on);
  struct ThreadgroupSiteRange {
    uint32_t site;
    uint64_t begin, end;  // arena offsets
    bool settled;         // the range is a settled range (else the site's filter range)
  };
  std::vector<ThreadgroupSiteRange> threadgroupSites_;
  // Settled reads. When every observer can tell (ExecutionObserver::threadgroupReadsSettled), each
  // 4-byte word of the arena carries a tag: who may read it without the observers being told,
  // until the next access to it they see or the next barrier. A plain read inside its site's
  // allocation (settledRange) whose words are tagged for everyone, or for the running thread's
  // SIMD-group, returns at the top of the hook: a tiled GEMM's tile reads, checked.
  bool settlesReads_ = false;
  std::vector<uint32_t> readTags_;          // per arena word: key << kKeyWhoBits | who
  uint32_t readGeneration_ = 0;             // the key: new at each barrier and threadgroup
  static constexpr unsigned kKeyWhoBits = kSettledWhoBits;
  uint32_t keyEveryone_ = 0;
  void newReadGeneration();
  bool readSettled(uintptr_t address, uint64_t size, uint32_t site) const {
    const FilterRange& r = settledRange(site);
    if (address < r.begin || address + size > r.end) return false;
    uint32_t keyOwn = (readGeneration_ << kKeyWhoBits) | (regionThread_ / kSimdWidth + 1);
    for (uint64_t word = (address - arenaBase_) / 4, last = (address + size - 1 - arenaBase_) / 4; word <= last; ++word)
      if (readTags_[word] != keyEveryone_ && readTags_[word] != keyOwn) return false;
    return true;
  }
  uintptr_t arenaBase_ = 0;
  void settleReads(uint64_t arenaOffset, uint64_t size);
  // First touches. When every observer that hears of in-allocation accesses may hear late of a
  // plain 4-byte access to a threadgroup word that is the first access to it in the barrier
  // interval (ExecutionObserver::defersFirstTouches), such an access only marks its word (who,
  // which site, read or write) and returns at the top of the hook. The observers hear of it
  // (stateFirstTouches) before the next access to the word that reaches them in the interval, and
  // before a simdgroup_barrier; a mark nothing follows dies with its interval (the next barrier
  // carrying mem_threadgroup), as the race check's state for it would. The uninit check's written
  // flags are set for a deferred write; a read of a word not all written is not deferred. In the
  // checked tree reduction, two of every three accesses; in a checked tiled GEMM, the tile stores
  // and the first read of each tile word.
  //   A second plain read of a word whose mark is a read by another thread is held back too
  // (deferTouch) when the observers say what two such reads would settle
  // (settledAfterTwoReads): the word's read tag says so at once, and the observers hear of both
  // reads, in order, when they would have heard of the first. In a checked tiled GEMM, every
  // tile word's second read (a row of threads reads each word of the A tile: then nothing of it
  // reaches the hook).
  bool defersFirstTouches_ = false;
  uint8_t* writtenFlags_ = nullptr;
  ExecutionObserver* flagsOwner_ = nullptr;
  struct FirstTouchSite {
    uint64_t begin = 0, end = 0;  // the site's threadgroup allocation, arena offsets (empty: none)
    bool plain = false, write = false;
  };
  std::vector<FirstTouchSite> firstTouchSites_;
  std::vector<uint64_t> touchMarks_;  // per arena word: generation << 32 | site << 12 | thread << 1 | write
  std::vector<uint64_t> secondReads_;  // per arena word, a held-back second read: as touchMarks_
  uint32_t touchGeneration_ = 0;
  static constexpr uint32_t kStatedThread = 0x7FF;  // the mark of a word whose accesses the observers heard of
  bool deferTouch(uintptr_t address, uint64_t size, uint32_t site);
  void setReadTag(uint64_t word, SettledReads who);
  void stateFirstTouches(uint64_t arenaOffset, uint64_t size);
  void stateEveryFirstTouch();
  void replayFirstTouch(uint64_t word, uint64_t mark);
  void newTouchGeneration();
  // A threadgroup barrier carrying `flags` was released: the observers, the settled reads' key, the
  // first touches' interval.
  void barrierReleased(unsigned flags);
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
  uint64_t frameStride_ = 0, frameCapacity_ = 0, frameAlignment_ = 0;
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
  void runThreadByThread(Size3 group, Size3 size, uint32_t count);  // CoroutinesAndFibers.cpp
  void runSequentially(Size3 group, Size3 size, uint32_t count);
  void runRegions(Size3 group, Size3 size, uint32_t count);
  void runSimdGroups(Size3 group, Size3 size, uint32_t count);  // VectorLanes.cpp
  void runSimdGroupRegions(Size3 group, Size3 size, uint32_t count, uint32_t groups);
  bool barrierWaitsFromFrames(const RegionLoopLayout& layout, uint32_t records);  // RegionLoop.cpp
  // Calls `loop` (over threads' or SIMD-groups' frames) until every record has finished or a
  // barrier cannot be released; `anyFinished`: a record finished before (RegionLoop.cpp).
  void runRegionRounds(const RegionLoopLayout& layout, RegionLoopFunction loop, uint32_t records, Size3 group,
                       bool anyFinished);
  Size3 simdRecordsSize_{0, 0, 0};  // the threadgroup size threads_ holds SIMD-group records for
  const void* starterArena_ = nullptr;  // the arena starter_'s arguments were bound with
  void poisonArena();
  bool sameBarrier(const RegionLoopLayout& layout, Size3 group, Size3 size, uint32_t count);
  // Region loops under checks (sync, or observers): the frames say where each thread waits.
  void runCheckedRegions(Size3 group, Size3 size, uint32_t count);
  // The sync check's findings, the same whether the threads ran as coroutines or in a region loop:
  // threads waiting at two barriers (the first of each and how many more), and threads that
  // returned before the barrier the others wait at.
  Finding barriersDiffer(Size3 group, CallSite a, const SimThread& firstAtA, size_t atA, CallSite b,
                         const SimThread& firstAtB, size_t atB) const;
  Finding barrierSkipped(Size3 group, CallSite site, uint32_t returned, uint32_t count,
                         const SimThread& firstReturned) const;
  uint32_t suspensionIndex(const RegionLoopLayout& layout, uint32_t thread) const;
  // The running thread's index: the JIT'd loops store it here (in region mode the hooks make that
  // thread current), and the loops that resume threads one by one do; the settled-read tests
  // read it (readSettled, and the kernel's own).
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
  // A started coroutine (a thread's, or a SIMD-group's in VectorLanes.cpp): run it to its next
  // suspension; done once at its final suspension, where it has no resume function.
  static void resumeCoroutine(SimThread& t) { (*static_cast<void (**)(void*)>(t.coroutine))(t.coroutine); }
  static void noteFinished(SimThread& t) {
    if (*static_cast<void* const*>(t.coroutine) == nullptr) t.state = ThreadState::Done;
  }
  bool isPrivateFrame(uintptr_t address, uint64_t size) const;
  void reportFault(Size3 group);
};


// Thread-local state of a worker (read by the hooks in ThreadgroupScheduler.cpp).
inline thread_local ThreadgroupScheduler* tCurrent = nullptr;
// The worker thread's stack, for kernels that run on it (no fibers): its lowest address, and the
// frame of ThreadgroupScheduler::run, above which every frame is the host's.
inline thread_local uintptr_t tStackLow = 0;
inline thread_local uintptr_t tKernelFramesTop = 0;
// The place in the dispatch order of the threadgroup this worker runs (findings are kept per place).
inline thread_local uint64_t tGroupOrder = ~uint64_t(0) - 1;
inline thread_local DispatchState* tDispatch = nullptr;
// Polled by JIT'd loops while a dispatch is cancelled or diagnosed (the __mslsim_cancel_flag symbol).
std::atomic<uint32_t>& cancelFlag();

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
  // The way the threadgroups' threads ran (DispatchResult::path): the same for every threadgroup
  // of a dispatch. Written only when it changes: it shares a cache line with what every worker
  // reads per threadgroup (cancelled).
  std::atomic<const char*> path{nullptr};
  void notePath(const char* name) {
    if (path.load(std::memory_order_relaxed) != name) path.store(name, std::memory_order_relaxed);
  }
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


}  // namespace mslsim::execution
#pragma GCC visibility pop
