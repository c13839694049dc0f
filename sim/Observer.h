// The events a dispatch emits, and the checkers that listen to them. The executor knows nothing
// about any particular check: each one (bounds, races, uninitialised reads) is an
// ExecutionObserver; a new check is a new observer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Executor.h"

namespace mslsim {

// A device or constant buffer, or a [[threadgroup(n)]] argument, as the checkers see it.
struct MemoryRegion {
  enum class Space { Device, Constant, Threadgroup };
  Space space = Space::Device;
  const ArgumentInfo* argument = nullptr;
  uintptr_t begin = 0, end = 0;  // the allocation (device/constant); arena offsets (threadgroup)
  uintptr_t base = 0;            // where the kernel's pointer points (element 0)
  bool readOnly = false;
  bool uninitialized = false;
  std::string describe(uintptr_t address, uint64_t accessSize) const;  // "buffer 1 (argument 'out')[12]"
  Finding::Location locate(uintptr_t address, uint64_t accessSize) const;
};

struct ThreadIdentity {
  Size3 group{0, 0, 0};
  Size3 groupSize{1, 1, 1};
  uint64_t groupLinear = 0;
  uint32_t linear = 0;  // thread_index_in_threadgroup
  Size3 local() const {
    return {linear % groupSize[0], linear / groupSize[0] % groupSize[1],
            linear / (groupSize[0] * groupSize[1])};
  }
  uint32_t lane() const { return linear % kSimdWidth; }
  uint32_t simdgroup() const { return linear / kSimdWidth; }
};

// What an instrumented access touched, resolved once by the executor for every observer.
struct MemoryAccess {
  uintptr_t address = 0;
  uint64_t size = 0;
  uint32_t siteIndex = 0;
  const AccessSite* site = nullptr;
  // PrivateArray: an access outside the thread-private array (or program-scope constant) the
  // site's pointer comes from; `privateOffset` is its byte offset from the object's start.
  enum class Target { Buffer, Threadgroup, Private, PrivateArray, Unknown } target = Target::Unknown;
  int64_t privateOffset = 0;
  const MemoryRegion* region = nullptr;              // Buffer, or a threadgroup argument
  const ThreadgroupVariable* variable = nullptr;     // a threadgroup variable
  uint64_t arenaOffset = 0;                          // Threadgroup: offset of `address` in the arena
  const uint8_t* newValue = nullptr;  // a store's bytes (observers run before the store happens)
  // The whole access lies in the allocation its site's pointer comes from (SiteAllocation), as the
  // executor found while resolving it: the bounds check has nothing to say but for a write to
  // read-only memory.
  bool inSiteAllocation = false;
  mutable bool suppress = false;      // set by the bounds check: the access is not performed

  // Inside its site's allocation and not a write to read-only memory: what observers that do not
  // need every access (ExecutionObserver::needsEveryAccess) are not told of.
  bool unremarkable() const {
    return inSiteAllocation && !(target == Target::Buffer && region->readOnly && isWrite(site->op));
  }
};

class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void report(Finding finding) = 0;
};

// The allocation an access site's pointer comes from, as the IR shows it (its provenance); all
// null when the IR could not tell.
struct SiteAllocation {
  const MemoryRegion* buffer = nullptr;               // a device or constant buffer argument
  const MemoryRegion* threadgroupArgument = nullptr;  // arena offsets
  const ThreadgroupVariable* variable = nullptr;
};

// The facts about a dispatch every observer may need.
struct DispatchFacts {
  const ExecutableKernel* kernel = nullptr;
  const DispatchGeometry* geometry = nullptr;
  CheckSet checks;
  std::vector<MemoryRegion> buffers;             // device/constant buffers
  std::vector<MemoryRegion> threadgroupArguments;  // arena offsets
  uint64_t arenaBytes = 0;
  std::vector<SiteAllocation> siteAllocations;   // per access site of the kernel, from the vectors above
  unsigned workers = 1;                           // threads running threadgroups at once
  FindingSink* sink = nullptr;
  std::function<void(const std::string&)> log;
  AccessRecord record(const AccessSite& site, const ThreadIdentity& thread) const;
  // Fills siteAllocations; after buffers and threadgroupArguments are complete.
  void resolveSiteAllocations();
};

// Who may read a word of threadgroup memory without the observers being told (the executor's
// settled reads, docs/checks.md): nobody, the threads of one SIMD-group, or every thread.
struct SettledReads {
  enum Who : uint8_t { Nobody, Simdgroup, Everyone } who = Nobody;
  uint32_t simdgroup = 0;
  // What two observers' answers allow together.
  SettledReads operator&(const SettledReads& o) const {
    if (who == Everyone) return o;
    if (o.who == Everyone) return *this;
    if (who == Simdgroup && o.who == Simdgroup && simdgroup == o.simdgroup) return *this;
    return {};
  }
};

// A claim the kernel's code may make itself for a plain 4-byte store (addStoreClaims, in the
// checked thread loop, where no barrier of any kind can come): a compare-and-swap of the 8-byte
// word at `bias + (address & ~3) * 2` from zero to `tag | number << threadShift`, `number` being
// the storing thread's in the dispatch (threadgroup * threads per requested threadgroup + index in
// it). When it succeeds no observer hears of the store; else the hook runs as usual.
struct StoreClaim {
  uintptr_t bias = 0;
  uint64_t tag = 0;
  unsigned threadShift = 0;
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  virtual void threadgroupBegin(const ThreadIdentity& firstThread, char* arena) {}
  virtual void access(const ThreadIdentity& thread, const MemoryAccess& access) {}
  // False if access() only cares about accesses outside the allocation the site's pointer comes
  // from (the bounds check): the others then skip the hook (see hook::kAccessFilter), and such an
  // observer is not told of MemoryAccess::unremarkable() accesses at all (nor asked whether reads
  // inside their allocation are settled: they are, for it).
  virtual bool needsEveryAccess() const { return true; }
  // Whether access() must see plain reads that lie inside `buffer` (one of DispatchFacts::buffers).
  // When no observer does, such reads skip the hook as the bounds check's do (under `--check all`:
  // the element-wise kernels' reads of their const inputs).
  virtual bool needsReadsInside(const MemoryRegion& buffer) const { return needsEveryAccess(); }
  // Whether, until the next barrier or access to it through access(), a plain read of the 4 bytes of
  // threadgroup memory at `arenaOffset` (a multiple of 4) would change nothing for this observer
  // and report nothing. Reads it settles skip access() (the checked GEMM's tile reads).
  virtual SettledReads threadgroupReadsSettled(uint64_t arenaOffset) const { return {}; }
  // Whether this observer may hear late of a plain 4-byte access to a threadgroup word inside its
  // site's allocation that is the first access to the word in its barrier interval: before the
  // next access to the word it hears of in the interval and before the next simdgroup_barrier,
  // or not at all if the interval ends (a barrier carrying mem_threadgroup) first. The race check
  // can (nothing conflicts with an access that nothing follows), the bounds check does not hear of
  // such accesses anyway (needsEveryAccess). See ThreadgroupScheduler, "First touches".
  virtual bool defersFirstTouches() const { return false; }
  // With defersFirstTouches: a flag per arena byte, 1 once a thread of the threadgroup wrote it,
  // which the executor sets for a write it defers; it defers no read of a word not all written.
  // At most one observer has them (the uninit check's).
  virtual uint8_t* threadgroupWrittenFlags() { return nullptr; }
  // With defersFirstTouches: what threadgroupReadsSettled would answer for the word at
  // `arenaOffset` once this observer heard of two plain 4-byte reads of it, by the threads
  // `first` and then `second` (linear in the threadgroup), the first accesses to the word in the
  // interval. The executor may then hold both back as it holds a first touch (stateFirstTouches).
  virtual SettledReads settledAfterTwoReads(uint64_t arenaOffset, uint32_t first, uint32_t second) const {
    return {};
  }
  // The claim (StoreClaim) for plain 4-byte stores of `site` inside `buffer`, if this observer
  // records such a store by one; at most one observer does.
  virtual std::optional<StoreClaim> storeClaim(const MemoryRegion& buffer, uint32_t site) const { return std::nullopt; }
  // Whether this observer may not hear of a plain store inside `buffer` that another's claim took.
  virtual bool ignoresClaimedStores(const MemoryRegion& buffer) const { return !needsEveryAccess(); }
  // A threadgroup barrier was released (all threads passed it).
  virtual void threadgroupBarrier(unsigned memFlags) {}
  // A simdgroup_barrier of SIMD-group `simdgroup` was released.
  virtual void simdgroupBarrier(uint32_t simdgroup) {}
  virtual void threadgroupEnd() {}
  // A SIMD-group function (size > 0) or simdgroup_barrier (size 0) released for `mask` lanes.
  virtual void simdCollective(uint32_t simdgroup, uint32_t mask, const SourcePosition& where) {}
  virtual void finding(const Finding& finding) {}
  virtual void dispatchEnd() {}
};

// Observers that trace rather than check: `--watch` and `--trace` (sim/Tracing.cpp).
std::vector<std::unique_ptr<ExecutionObserver>> makeTracers(const DispatchFacts& facts, const DispatchRequest& request,
                                                            std::shared_ptr<void>& sharedState);
// Records the last writer of every buffer element; takeWriters() hands the result over.
std::vector<std::unique_ptr<ExecutionObserver>> makeWriterTrackers(const DispatchFacts& facts,
                                                                   std::shared_ptr<void>& sharedState);
std::map<unsigned, std::vector<ElementWriter>> takeWriters(const std::shared_ptr<void>& sharedState);

// Writes the trace the tracers of one dispatch recorded (`sharedState` from makeTracers).
void writeTrace(const std::shared_ptr<void>& sharedState, const std::string& path);

// The state the checkers of all workers share (across threadgroups), made once per dispatch before
// the workers start; then each worker makes its checkers, the ones `facts.checks` asks for.
// Why the checks asked for cannot run this dispatch (a limit of their shadow state), "" if they can.
std::string whyChecksCannotRun(const DispatchFacts& facts);
void prepareCheckers(const DispatchFacts& facts, std::shared_ptr<void>& sharedState);
std::vector<std::unique_ptr<ExecutionObserver>> makeCheckers(const DispatchFacts& facts,
                                                             std::shared_ptr<void>& sharedState);

}  // namespace mslsim
