// What every execution path shares: binding a thread's arguments, the observers (checkers) and
// the accesses they see, releasing barriers and SIMD-group collectives, reporting faults; and the
// runtime hooks through which JIT'd code reaches the scheduler (kept in this file, with the
// thread-locals they read, so that they stay direct calls).
#include "ThreadgroupScheduler.h"

#include <tuple>

// The arithmetic of simdgroup_matrix products (SimdgroupMatrix.cpp).
extern "C" uint64_t __mslsim_simdgroup_mma(const void* lanes, unsigned lane);
extern "C" void __mslsim_lanes_simdgroup_mma(const void* lanes, unsigned mask, uint64_t* results);

namespace mslsim::execution {

std::atomic<uint32_t>& cancelFlag() {
  static std::atomic<uint32_t> flag{0};
  return flag;
}

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

namespace {
// "(x,y,z)", as reports write positions.
std::string positionText(Size3 p) {
  return "(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + ")";
}
}  // namespace

// Every word of the arena the poison word, 64 bytes at a time (a word at a time, a 1 KiB tile cost
// the tree reduction a tenth of its unchecked run).
void ThreadgroupScheduler::poisonArena() {
  static const auto block = [] {
    std::array<uint32_t, 16> words;
    words.fill(kPoisonWord);
    return words;
  }();
  uint8_t* data = arena_.data();
  const size_t words = arena_.size() / 4 * 4;
  size_t i = 0;
  for (; i + sizeof block <= words; i += sizeof block) std::memcpy(data + i, block.data(), sizeof block);
  for (; i < words; i += 4) std::memcpy(data + i, &kPoisonWord, 4);
}

void ThreadgroupScheduler::run(Size3 group) {
  Size3 size = dispatch_.geometry.threadgroupSize(group);
  uint32_t count = size[0] * size[1] * size[2];
  if (count == 0) return;
  // Threadgroup memory is not zeroed on a GPU: poison it so a read-before-write shows.
  if (!arena_.data() || arena_.size() != dispatch_.arenaBytes) arena_ = GuardedMemory(dispatch_.arenaBytes, GuardedMemory::Extent::Exact);
  poisonArena();
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
    (r.settled ? settledRange(r.site) : filter_[r.site]) = {arenaBase + r.begin, arenaBase + r.end};
  arenaBase_ = arenaBase;
  if (settlesReads_) publishSettledReadTest();
  newReadGeneration();  // the observers start the threadgroup afresh
  if (defersFirstTouches_) {
    writtenFlags_ = flagsOwner_ ? flagsOwner_->threadgroupWrittenFlags() : nullptr;
    newTouchGeneration();
  }
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

// The arena range of the threadgroup variable or argument a site's pointer comes from; empty if none.
static std::pair<uint64_t, uint64_t> threadgroupAllocation(const SiteAllocation& at) {
  if (const ThreadgroupVariable* v = at.variable) return {v->offset, v->offset + v->size};
  if (const MemoryRegion* r = at.threadgroupArgument) return {r->begin, r->end};
  return {0, 0};
}

void ThreadgroupScheduler::setObservers(std::vector<std::unique_ptr<ExecutionObserver>> observers) {
  observers_ = std::move(observers);
  const ExecutableKernel& kernel = dispatch_.kernel;
  size_t sites = kernel.sites ? kernel.sites->size() : 0;
  bool everyAccess = false;
  needsEveryAccess_.clear();
  settlers_.clear();
  for (auto& o : observers_) {
    needsEveryAccess_.push_back(o->needsEveryAccess());
    if (o->needsEveryAccess()) settlers_.push_back(o.get());
    everyAccess |= o->needsEveryAccess();
  }
  threadgroupSites_.clear();
  settlesReads_ = false;
  readTags_.assign((dispatch_.arenaBytes + 3) / 4, 0);
  siteCount_ = sites;
  filter_.assign(4 * sites + 3, {0, 0});  // settled ranges and claims empty: no read is settled
  storeClaims_.assign(sites, std::nullopt);
  anyStoreClaim_ = false;
  for (size_t i = 0; everyAccess && i < sites; ++i) {
    const MemoryRegion* r = dispatch_.facts.siteAllocations[i].buffer;
    if ((*kernel.sites)[i].op != AccessOp::Store || !r || r->readOnly) continue;
    std::optional<StoreClaim> claim;
    bool ignored = true;  // by every observer but the claim's
    for (auto& o : observers_)
      if (std::optional<StoreClaim> c = o->storeClaim(*r, uint32_t(i)); c && !claim)
        claim = c;
      else
        ignored &= o->ignoresClaimedStores(*r);
    if (claim && ignored) {
      storeClaims_[i] = SiteClaim{*claim, r->begin, r->end};
      anyStoreClaim_ = true;
    }
  }
  defersFirstTouches_ = everyAccess && sites < (1u << 20);
  flagsOwner_ = nullptr;
  for (auto& o : observers_) {
    if (!o->needsEveryAccess()) continue;  // hears of no in-allocation access
    if (!o->defersFirstTouches()) defersFirstTouches_ = false;
    if (o->threadgroupWrittenFlags()) {
      if (flagsOwner_) defersFirstTouches_ = false;  // one set of flags the executor keeps
      flagsOwner_ = o.get();
    }
  }
  firstTouchSites_.assign(sites, {});
  touchMarks_.assign(readTags_.size(), 0);
  secondReads_.assign(readTags_.size(), 0);
  touchGeneration_ = 0;
  for (size_t i = 0; defersFirstTouches_ && i < sites; ++i) {
    const SiteAllocation& at = dispatch_.facts.siteAllocations[i];
    FirstTouchSite& f = firstTouchSites_[i];
    std::tie(f.begin, f.end) = threadgroupAllocation(at);
    AccessOp op = (*kernel.sites)[i].op;
    f.plain = op == AccessOp::Load || op == AccessOp::Store;
    f.write = op == AccessOp::Store;
  }
  if (observers_.empty()) {  // nobody listens: no access needs the hook
    std::fill(filter_.begin(), filter_.begin() + sites, FilterRange{0, ~uint64_t(0)});
    return;
  }
  // Site filters empty: every access calls the hook.
  // Every access must be seen: but plain reads of threadgroup memory inside their allocation may
  // be settled, and plain reads inside a buffer no observer needs (needsReadsInside) skip the
  // hook. Else only the bounds check listens: an access inside the allocation its pointer comes
  // from (as the check itself would find it) has nothing to report.
  settlesReads_ = everyAccess;
  const DispatchFacts& facts = dispatch_.facts;
  for (size_t i = 0; i < sites; ++i) {
    const SiteAllocation& at = facts.siteAllocations[i];
    bool plainRead = (*kernel.sites)[i].op == AccessOp::Load;
    if (everyAccess && !plainRead) continue;
    if (const MemoryRegion* r = at.buffer) {
      bool skips = everyAccess ? std::none_of(observers_.begin(), observers_.end(),
                                              [&](auto& o) { return o->needsReadsInside(*r); })
                               : !(r->readOnly && isWrite((*kernel.sites)[i].op));  // a write to read-only memory there is reported
      if (skips) filter_[i] = {r->begin, r->end};
    } else if (at.threadgroupArgument || at.variable) {
      auto [begin, end] = threadgroupAllocation(at);
      threadgroupSites_.push_back({uint32_t(i), begin, end, everyAccess});
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
}

// The checked thread loop's claims (addStoreClaims): on while it runs, off (empty ranges) for the
// other paths, where a barrier could come after a claim.
void ThreadgroupScheduler::publishStoreClaims(bool on) {
  if (!anyStoreClaim_) return;
  Size3 size = dispatch_.geometry.requestedThreadgroupSize();
  filter_[2 * siteCount_ + 2] = {groupLinear_ * (uint64_t(size[0]) * size[1] * size[2]), 0};
  for (size_t i = 0; i < siteCount_; ++i) {
    if (!storeClaims_[i]) continue;
    const SiteClaim& c = *storeClaims_[i];
    filter_[2 * siteCount_ + 2].end = c.claim.threadShift;
    filter_[2 * siteCount_ + 3 + 2 * i] = {c.claim.bias, c.claim.tag};
    filter_[2 * siteCount_ + 4 + 2 * i] = on ? FilterRange{c.begin, c.end} : FilterRange{0, 0};
  }
}

void ThreadgroupScheduler::newTouchGeneration() {
  if (++touchGeneration_ == 0) {  // the marks would repeat: forget them all
    std::fill(touchMarks_.begin(), touchMarks_.end(), 0);
    std::fill(secondReads_.begin(), secondReads_.end(), 0);
    touchGeneration_ = 1;
  }
}

void ThreadgroupScheduler::barrierReleased(unsigned flags) {
  for (auto& o : observers_) o->threadgroupBarrier(flags);
  newReadGeneration();
  if (defersFirstTouches_ && (flags & 2)) newTouchGeneration();  // mem_threadgroup: marks die
}

// A plain 4-byte access inside its site's threadgroup allocation: held back when it is the first
// to its word in the interval (marked and done), or a read following such a read by another
// thread that the observers say settles the word (see "First touches" in ThreadgroupScheduler.h).
bool ThreadgroupScheduler::deferTouch(uintptr_t address, uint64_t size, uint32_t site) {
  uint64_t offset = address - arenaBase_;
  const FirstTouchSite& s = firstTouchSites_[site];
  if (size != 4 || (offset & 3) || !s.plain || offset < s.begin || offset + 4 > s.end) return false;
  uint64_t word = offset / 4;
  uint64_t& mark = touchMarks_[word];
  if (uint32_t(mark >> 32) != touchGeneration_) {  // the first touch
    if (writtenFlags_) {
      using FlagWord = uint32_t __attribute__((may_alias));  // the byte flags of the word, as one
      FlagWord* flags = reinterpret_cast<FlagWord*>(writtenFlags_ + offset);
      if (s.write)
        *flags = 0x01010101u;
      else if (*flags != 0x01010101u)
        return false;  // the uninit check decides
    }
    mark = uint64_t(touchGeneration_) << 32 | uint64_t(site) << 12 | uint64_t(current_->linear) << 1 | s.write;
    return true;
  }
  // A second read: the mark is an unstated read by another thread, no second read held yet.
  uint32_t first = uint32_t(mark >> 1 & 0x7FF);
  if (s.write || (mark & 1) || first == kStatedThread || first == current_->linear ||
      uint32_t(secondReads_[word] >> 32) == touchGeneration_)
    return false;
  SettledReads who{SettledReads::Everyone};
  for (ExecutionObserver* o : settlers_) who = who & o->settledAfterTwoReads(offset, first, current_->linear);
  if (who.who == SettledReads::Nobody) return false;
  secondReads_[word] = uint64_t(touchGeneration_) << 32 | uint64_t(site) << 12 | uint64_t(current_->linear) << 1;
  setReadTag(word, who);
  return true;
}

// The observers hear of the deferred first touches of the words of [arenaOffset, +size), and of
// second reads held back, and the words are marked as stated for the rest of the interval.
void ThreadgroupScheduler::stateFirstTouches(uint64_t arenaOffset, uint64_t size) {
  for (uint64_t word = arenaOffset / 4; word * 4 < arenaOffset + size && word < touchMarks_.size(); ++word) {
    uint64_t& mark = touchMarks_[word];
    if (uint32_t(mark >> 32) == touchGeneration_ && (mark >> 1 & 0x7FF) != kStatedThread) {
      replayFirstTouch(word, mark);
      if (uint32_t(secondReads_[word] >> 32) == touchGeneration_) replayFirstTouch(word, secondReads_[word]);
    }
    mark = uint64_t(touchGeneration_) << 32 | uint64_t(kStatedThread) << 1;
  }
}

void ThreadgroupScheduler::stateEveryFirstTouch() {
  for (uint64_t word = 0; word < touchMarks_.size(); ++word)
    if (uint32_t(touchMarks_[word] >> 32) == touchGeneration_) stateFirstTouches(word * 4, 4);
}

// The access a mark stands for, as the hook would have told it (inside its site's allocation: the
// observers that need every access hear of it). A write's value is in memory now.
void ThreadgroupScheduler::replayFirstTouch(uint64_t word, uint64_t mark) {
  MemoryAccess a;
  a.address = arenaBase_ + word * 4;
  a.size = 4;
  a.siteIndex = uint32_t(mark >> 12 & 0xFFFFF);
  a.site = &(*dispatch_.kernel.sites)[a.siteIndex];
  a.target = MemoryAccess::Target::Threadgroup;
  a.arenaOffset = word * 4;
  const SiteAllocation& at = dispatch_.facts.siteAllocations[a.siteIndex];
  if (at.variable)
    a.variable = at.variable;
  else
    a.region = at.threadgroupArgument;
  a.inSiteAllocation = true;
  if (mark & 1) a.newValue = reinterpret_cast<const uint8_t*>(a.address);
  ThreadIdentity who{group_, groupSize_, groupLinear_, uint32_t(mark >> 1 & 0x7FF)};
  for (size_t i = 0; i < observers_.size(); ++i)
    if (needsEveryAccess_[i]) observers_[i]->access(who, a);
}

// After an access the observers saw: the words it touched, settled for whom the observers say.
void ThreadgroupScheduler::settleReads(uint64_t arenaOffset, uint64_t size) {
  for (uint64_t word = arenaOffset / 4; word * 4 < arenaOffset + size && word < readTags_.size(); ++word) {
    SettledReads who{SettledReads::Everyone};
    if (word * 4 + 4 > arena_.size()) who = {};
    for (ExecutionObserver* o : settlers_) {
      if (who.who == SettledReads::Nobody) break;
      who = who & o->threadgroupReadsSettled(word * 4);
    }
    setReadTag(word, who);
  }
}

void ThreadgroupScheduler::setReadTag(uint64_t word, SettledReads who) {
  uint32_t code = who.who == SettledReads::Everyone ? (1u << kKeyWhoBits) - 1
                  : who.who == SettledReads::Simdgroup ? who.simdgroup + 1
                                                       : 0;
  readTags_[word] = code ? (readGeneration_ << kKeyWhoBits) | code : 0;
}

ThreadIdentity ThreadgroupScheduler::identity(const SimThread& t) const {
  return {group_, groupSize_, groupLinear_, t.linear};
}

// access, threadgroupBarrier and simdExchange are called only by their hooks at the end of this
// file: `inline` lets the compiler fold each into its hook, as it did while they had internal
// linkage (a call less at every access, barrier and SIMD-group function).
inline bool ThreadgroupScheduler::access(uintptr_t address, uint64_t size, uint32_t site, const uint8_t* newValue) {
  if (observers_.empty() || !current_) return true;
  if (settlesReads_ && readSettled(address, size, site)) return true;
  if (defersFirstTouches_ && address - arenaBase_ < touchMarks_.size() * 4 &&
      deferTouch(address, size, site))
    return true;
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
      a.inSiteAllocation = a.arenaOffset + size <= v->offset + v->size;
    } else if (r && a.arenaOffset >= r->begin && a.arenaOffset < r->end) {
      a.region = r;
      a.inSiteAllocation = a.arenaOffset + size <= r->end;
    } else {
      for (auto& v : dispatch_.kernel.threadgroupVariables)
        if (a.arenaOffset >= v.offset && a.arenaOffset < v.offset + v.size) a.variable = &v;
      for (auto& r : facts.threadgroupArguments)
        if (a.arenaOffset >= r.begin && a.arenaOffset < r.end) a.region = &r;
    }
  } else if (at.buffer && address >= at.buffer->begin && address < at.buffer->end) {
    a.target = MemoryAccess::Target::Buffer;
    a.region = at.buffer;
    a.inSiteAllocation = address + size <= at.buffer->end;
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
  if (defersFirstTouches_ && a.target == MemoryAccess::Target::Threadgroup) stateFirstTouches(a.arenaOffset, size);
  ThreadIdentity who = identity(*current_);
  bool unremarkable = a.unremarkable();
  for (size_t i = 0; i < observers_.size(); ++i)
    if (needsEveryAccess_[i] || !unremarkable) observers_[i]->access(who, a);
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


// The path a threadgroup's threads take (the files named in ThreadgroupScheduler.h).
void ThreadgroupScheduler::runThreads(Size3 group, Size3 size, uint32_t count) {
  frameCount_ = count;
  if (scheduling_ == ThreadScheduling::Sequential) return runSequentially(group, size, count);
  // Kernels that synchronise, which the vectoriser took, in the default order: a SIMD-group at a
  // time, as vector lanes (VectorLanes.cpp); also under checks that need neither every access
  // (races, uninitialised reads, tracing) nor the lanes one by one at SIMD-group functions
  // (--check simd).
  if (dispatch_.kernel.simdGroups && runsAsVectorLanes(dispatch_.kernel, dispatch_.request.options))
    return runSimdGroups(group, size, count);
  // Unchecked barrier-only kernels in the default order: the JIT'd region loop (see runRegions).
  // Not under the sync check, which names the barriers' lines and the threads that returned
  // before one (the region loop sees neither).
  if (dispatch_.kernel.regionLoop && dispatch_.request.options.schedule.order == Schedule::Order::InOrder) {
    if (observers_.empty() && !dispatch_.facts.checks.sync) return runRegions(group, size, count);
    // Checked: barrier-only kernels whose barriers the frames name, as the hooks would.
    const RegionLoopLayout& layout = *dispatch_.kernel.regionLoopLayout;
    if (!layout.recordsThreads && !layout.barriers.empty()) return runCheckedRegions(group, size, count);
  }
  runThreadByThread(group, size, count);
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
  std::string who;
  if (!current_) {
    who = "a thread of threadgroup " + positionText(group);
  } else if (current_->threads > 1) {
    // A SIMD-group run as vector lanes: the fault is one lane's, and which one the signal does
    // not say. Naming the first lane would name a thread that may have done nothing wrong.
    uint32_t last = current_->linear + current_->threads - 1;
    Size3 lastLocal{last % groupSize_[0], last / groupSize_[0] % groupSize_[1], last / (groupSize_[0] * groupSize_[1])};
    who = "one of threads " + positionText(current_->local) + " to " + positionText(lastLocal) + " of threadgroup " +
          positionText(group) + " (SIMD-group " + std::to_string(current_->linear / kSimdWidth) +
          ", whose lanes ran as one vector program; the per-thread path names the thread)";
  } else {
    who = describeThread(*current_, group);
  }
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

inline void ThreadgroupScheduler::threadgroupBarrier(unsigned flags, const char* file, unsigned line, unsigned column) {
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

inline unsigned ThreadgroupScheduler::simdExchange(const void* value, void* lanes, unsigned size, const char* file,
                                            unsigned line, unsigned column, uint64_t* product) {
  if (scheduling_ == ThreadScheduling::Sequential || !current_) {  // not reachable when the kernel was classified correctly
    if (size) std::memcpy(static_cast<char*>(lanes) + lane() * size, value, size);
    if (product) *product = __mslsim_simdgroup_mma(lanes, lane());
    return 1u << lane();
  }
  SimThread* t = current_;
  t->site.file = file;
  t->site.line = line;
  t->site.column = column;
  // A fiber's stack stays as it is while it waits; a suspended coroutine's temporaries are gone
  // (its lanes buffer, read after the resume, lives in its frame), so it leaves a copy.
  if (scheduling_ == ThreadScheduling::Fibers) {
    t->contribution = value;
  } else {
    t->contributionCopy.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
    t->contribution = t->contributionCopy.data();
  }
  t->lanes = lanes;
  t->size = size;
  t->product = product;
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
    const SimThread* earliest = &threads_[first];
    unsigned mask = 0, size = earliest->size;
    bool mismatch = false;
    // The usual case: every lane waits at one call, in the same iterations of its loops, with a
    // value of one size.
    bool together = earliest->state == ThreadState::AtSimdCollective;
    for (uint32_t i = first + 1; together && i < last; ++i) {
      const SimThread& t = threads_[i];
      together = t.state == ThreadState::AtSimdCollective && t.site == earliest->site && t.size == size &&
                 t.loops == earliest->loops;
    }
    if (together) {
      mask = last - first == kSimdWidth ? 0xFFFFFFFFu : (1u << (last - first)) - 1;
    } else {
      earliest = nullptr;
      for (uint32_t i = first; i < last; ++i)
        if (threads_[i].state == ThreadState::AtSimdCollective && (!earliest || behind(threads_[i], *earliest)))
          earliest = &threads_[i];
      if (!earliest) continue;
      for (uint32_t i = first; i < last; ++i) {
        SimThread& t = threads_[i];
        if (t.state != ThreadState::AtSimdCollective || !(t.site == earliest->site) || t.loops != earliest->loops) continue;
        if (mask && t.size != size) mismatch = true;
        size = t.size;
        mask |= 1u << (i - first);
      }
    }
    const CallSite site = earliest->site;
    if (mismatch) {
      dispatch_.report({Finding::Severity::Error, "simd-size-mismatch",
                        "lanes of one SIMD-group called a SIMD-group function with values of "
                        "different sizes at the same call site",
                        {site.position()}});
      return false;
    }
    // A simdgroup_matrix product with every lane taking part: multiplied here once, each lane
    // handed its two elements (fuseMatrixExchanges); nothing is copied into the lanes' buffers.
    const bool product = earliest->product != nullptr, multiplied = product && mask == 0xFFFFFFFFu;
    if (multiplied) {
      struct alignas(8) { uint8_t bytes[kSimdWidth * kMatrixLaneOperandsBytes]; } operands;
      uint64_t results[kSimdWidth];
      for (uint32_t i = first; i < last; ++i)
        std::memcpy(operands.bytes + (i - first) * kMatrixLaneOperandsBytes, threads_[i].contribution,
                    kMatrixLaneOperandsBytes);
      __mslsim_lanes_simdgroup_mma(operands.bytes, mask, results);
      for (uint32_t i = first; i < last; ++i) *threads_[i].product = results[i - first];
    }
    // Otherwise all contributions are gathered into the first active lane's buffer, which is then
    // copied whole to the others (entries of inactive lanes are never read).
    const char* gathered = nullptr;
    for (uint32_t i = first; i < last; ++i) {
      SimThread& t = threads_[i];
      if (!(mask & (1u << (i - first)))) continue;
      if (size && !multiplied && !gathered) {
        for (uint32_t j = first; j < last; ++j)
          if (mask & (1u << (j - first)))
            std::memmove(static_cast<char*>(t.lanes) + (j - first) * size, threads_[j].contribution, size);
        gathered = static_cast<const char*>(t.lanes);
      } else if (size && !multiplied) {
        std::memcpy(t.lanes, gathered, size_t(size) * (last - first));
      }
      // A product some lanes take no part in: each lane's as kSimdgroupMma computes it (the
      // standard library reads the buffer instead, which says which lanes were inactive).
      if (product && !multiplied) *t.product = __mslsim_simdgroup_mma(t.lanes, i - first);
      t.resultMask = mask;
      t.state = ThreadState::Runnable;
      --atSimdCollective_;
    }
    if (size == 0) {
      if (defersFirstTouches_) stateEveryFirstTouch();  // the race check's SIMD-group epochs move on
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
  return "thread " + positionText(t.local) + " of threadgroup " + positionText(group);
}

// All threads are at threadgroup barriers or finished. Returns false when the threadgroup is done.
bool ThreadgroupScheduler::resolveBarrier(Size3 group) {
  if (atBarrier_ == threads_.size() && !barrierSitesDiffer_) {
    // Every thread at the same barrier: the usual case.
    for (auto& t : threads_) t.state = ThreadState::Runnable;
    atBarrier_ = 0;
    barrierReleased(barrierFlags_);
    return true;
  }
  const SimThread* firstWaiting = nullptr;
  bool oneBarrier = true;
  uint32_t done = 0, all = 0;  // threads, not records (a record may be a SIMD-group's lanes)
  for (auto& t : threads_) {
    all += t.threads;
    if (t.state == ThreadState::Done) done += t.threads;
    if (t.state != ThreadState::AtThreadgroupBarrier) continue;
    if (!firstWaiting)
      firstWaiting = &t;
    else if (!(t.site == firstWaiting->site))
      oneBarrier = false;
  }
  if (!firstWaiting) return false;
  if (!oneBarrier) {
    std::map<CallSite, std::pair<const SimThread*, size_t>> waiting;  // the first thread there, how many
    for (auto& t : threads_)
      if (t.state == ThreadState::AtThreadgroupBarrier) {
        auto& [first, threads] = waiting[t.site];
        if (!first) first = &t;
        threads += t.threads;
      }
    auto a = waiting.begin(), b = std::next(a);
    dispatch_.report(barriersDiffer(group, a->first, *a->second.first, a->second.second, b->first, *b->second.first,
                                    b->second.second));
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
    dispatch_.report(barrierSkipped(group, site, done, all, *returned));
  }
  unsigned flags = 0;
  for (auto& t : threads_)
    if (t.state == ThreadState::AtThreadgroupBarrier) {
      flags |= t.flags;
      t.state = ThreadState::Runnable;
    }
  atBarrier_ = 0;
  barrierSitesDiffer_ = false;
  barrierReleased(flags);
  return true;
}

}  // namespace mslsim::execution

namespace mslsim {
using namespace execution;

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
unsigned __mslsim_simd_mma_exchange(const void* operands, void* lanes, uint64_t* product, const char* file,
                                    unsigned line, unsigned column) {
  if (tCurrent) return tCurrent->enter()->simdExchange(operands, lanes, kMatrixLaneOperandsBytes, file, line, column, product);
  *product = __mslsim_simdgroup_mma(lanes, 0);
  return 1u;
}
unsigned __mslsim_simd_lane(void) { return tCurrent ? tCurrent->enter()->lane() : 0; }
unsigned __mslsim_simd_result(void) { return tCurrent ? tCurrent->enter()->simdResult() : 0; }
void* __mslsim_coroutine_frame(uint64_t size, uint64_t align) { return tCurrent->coroutineFrame(size, align); }
void* __mslsim_coroutine_frames(uint64_t size, uint64_t align) { return tCurrent->coroutineFrames(size, align); }
const void* __mslsim_access_filter(void) { return tCurrent->accessFilter(); }
void* __mslsim_threadgroup_arena(void) { return tCurrent ? tCurrent->arena() : nullptr; }
unsigned __mslsim_running_thread(void) { return tCurrent ? tCurrent->enter()->runningThread() : 0; }
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
unsigned __mslsim_lanes_access(void* const* addresses, uint64_t size, uint32_t site, void* const* newValues,
                               unsigned lanes) {
  if (!tCurrent) return lanes;
  ThreadgroupScheduler* s = tCurrent->enter();
  unsigned allowed = 0;
  for (unsigned l = 0; l < kSimdWidth; ++l)
    if (lanes >> l & 1u) {
      bool ok = s->asLane(l, [&](ThreadgroupScheduler& t) {
        return t.access(reinterpret_cast<uintptr_t>(addresses[l]), size, site,
                        static_cast<const uint8_t*>(newValues ? newValues[l] : nullptr));
      });
      allowed |= unsigned(ok) << l;
    }
  return allowed;
}
void __mslsim_lanes_private_overrun(void* const* addresses, uint64_t size, uint32_t site, void* const* bases,
                                    unsigned lanes) {
  if (!tCurrent) return;
  ThreadgroupScheduler* s = tCurrent->enter();
  for (unsigned l = 0; l < kSimdWidth; ++l)
    if (lanes >> l & 1u)
      s->asLane(l, [&](ThreadgroupScheduler& t) {
        t.privateOverrun(reinterpret_cast<uintptr_t>(addresses[l]), size, site, reinterpret_cast<uintptr_t>(bases[l]));
        return true;
      });
}
void __mslsim_poll(const char* file, unsigned line, unsigned column) {
  if (!tDispatch || !tCurrent) return;
  if (tDispatch->cancelled) tCurrent->enter()->abortCurrentThread({file, line, column});
  if (tDispatch->diagnosing.load(std::memory_order_relaxed)) tCurrent->enter()->loopRound({file, line, column});
}
void __mslsim_simd_loop_position(const uint32_t* positions, unsigned depth) {
  if (tCurrent) tCurrent->enter()->simdLoopPosition(positions, depth);
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
      {hook::kSimdMmaExchange, reinterpret_cast<void*>(&__mslsim_simd_mma_exchange)},
      {hook::kSimdResult, reinterpret_cast<void*>(&__mslsim_simd_result)},
      {hook::kCoroutineFrame, reinterpret_cast<void*>(&__mslsim_coroutine_frame)},
      {hook::kCoroutineFrames, reinterpret_cast<void*>(&__mslsim_coroutine_frames)},
      {hook::kAccessFilter, reinterpret_cast<void*>(&__mslsim_access_filter)},
      {"__mslsim_threadgroup_arena", reinterpret_cast<void*>(&__mslsim_threadgroup_arena)},
      {hook::kRunningThread, reinterpret_cast<void*>(&__mslsim_running_thread)},
      {"__mslsim_poll", reinterpret_cast<void*>(&__mslsim_poll)},
      {"__mslsim_poll_read", reinterpret_cast<void*>(&__mslsim_poll_read)},
      {hook::kSimdLoopPosition, reinterpret_cast<void*>(&__mslsim_simd_loop_position)},
      {"__mslsim_access", reinterpret_cast<void*>(&__mslsim_access)},
      {hook::kPrivateOverrun, reinterpret_cast<void*>(&__mslsim_private_overrun)},
      {hook::kLanesAccess, reinterpret_cast<void*>(&__mslsim_lanes_access)},
      {hook::kLanesPrivateOverrun, reinterpret_cast<void*>(&__mslsim_lanes_private_overrun)},
      {hook::kSimdgroupMma, reinterpret_cast<void*>(&__mslsim_simdgroup_mma)},
      {hook::kLanesSimdgroupMma, reinterpret_cast<void*>(&__mslsim_lanes_simdgroup_mma)},
      {"__mslsim_simd_inactive_read", reinterpret_cast<void*>(&__mslsim_simd_inactive_read)},
      {"__mslsim_cancel_flag", reinterpret_cast<void*>(&cancelFlag())},
  };
}

}  // namespace mslsim

