// The checkers: each an ExecutionObserver. See docs/checks.md for what each reports and why.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <utility>

#include "Observer.h"

namespace mslsim {

const char* accessOpName(AccessOp op) {
  switch (op) {
    case AccessOp::Load: return "read";
    case AccessOp::Store: return "write";
    case AccessOp::AtomicRMW: return "atomic read-modify-write";
    case AccessOp::AtomicLoad: return "atomic read";
    case AccessOp::AtomicStore: return "atomic write";
  }
  return "access";
}

Finding::Location MemoryRegion::locate(uintptr_t address, uint64_t accessSize) const {
  Finding::Location l;
  l.argument = argument ? argument->name : "?";
  l.buffer = argument ? int(argument->binding) : -1;
  int64_t element = int64_t(argument && argument->pointeeSize ? argument->pointeeSize : accessSize);
  l.byteOffset = int64_t(address) - int64_t(base);
  l.element = l.byteOffset >= 0 ? l.byteOffset / element : -((-l.byteOffset + element - 1) / element);
  return l;
}

std::string MemoryRegion::describe(uintptr_t address, uint64_t accessSize) const {
  Finding::Location l = locate(address, accessSize);
  return std::string(space == Space::Threadgroup ? "threadgroup argument " : "buffer ") + std::to_string(l.buffer) +
         " (argument '" + l.argument + "')[" + std::to_string(l.element) + "]";
}

AccessRecord DispatchFacts::record(const AccessSite& site, const ThreadIdentity& t) const {
  return {accessOpName(site.op), site.where, t.group, t.local(), t.lane()};
}

void DispatchFacts::resolveSiteAllocations() {
  size_t count = kernel && kernel->sites ? kernel->sites->size() : 0;
  siteAllocations.assign(count, {});
  for (size_t i = 0; i < count; ++i) {
    const AccessSite& site = (*kernel->sites)[i];
    SiteAllocation& at = siteAllocations[i];
    if (site.param >= 0) {
      for (auto& r : buffers)
        if (int(r.argument->position) == site.param) at.buffer = &r;
      if (!at.buffer)
        for (auto& r : threadgroupArguments)
          if (int(r.argument->position) == site.param) at.threadgroupArgument = &r;
    } else if (site.threadgroupOffset >= 0) {
      for (auto& v : kernel->threadgroupVariables)
        if (uint64_t(site.threadgroupOffset) >= v.offset && uint64_t(site.threadgroupOffset) < v.offset + v.size)
          at.variable = &v;
    }
  }
}

namespace {

const char* spaceName(MemoryRegion::Space s) {
  return s == MemoryRegion::Space::Device ? "device" : s == MemoryRegion::Space::Constant ? "constant" : "threadgroup";
}

Finding::Location variableLocation(const ThreadgroupVariable& v, uint64_t arenaOffset, uint64_t size) {
  Finding::Location l;
  l.variable = v.name;
  l.byteOffset = int64_t(arenaOffset) - int64_t(v.offset);
  l.element = l.byteOffset >= 0 ? l.byteOffset / int64_t(size) : -1;
  return l;
}

std::string variableElement(const ThreadgroupVariable& v, uint64_t arenaOffset, uint64_t size) {
  return "threadgroup variable '" + v.name + "'[" + std::to_string(variableLocation(v, arenaOffset, size).element) + "]";
}

// The structured location of an access (for JSON reports), from what the executor resolved.
Finding::Location locationOf(const MemoryAccess& a, uintptr_t address) {
  if (a.variable) return variableLocation(*a.variable, address - (a.address - a.arenaOffset), a.size);
  if (a.region)
    return a.region->locate(a.region->space == MemoryRegion::Space::Threadgroup ? address - (a.address - a.arenaOffset)
                                                                                : address,
                            a.size);
  return {};
}

// ---------------------------------------------------------------------------------------------
// Bounds: every access must stay inside the allocation its pointer belongs to. When the IR shows
// which parameter or threadgroup variable a pointer comes from, that allocation is the reference,
// so a read one past the end of buffer 0 is an error even if buffer 1 follows it in memory.
class BoundsChecker : public ExecutionObserver {
 public:
  explicit BoundsChecker(const DispatchFacts& facts) : facts_(facts) {}
  bool needsEveryAccess() const override { return false; }

  void access(const ThreadIdentity& thread, const MemoryAccess& a) override {
    const AccessSite& site = *a.site;  // never unremarkable (needsEveryAccess)
    uintptr_t end = a.address + a.size;
    // The allocation the pointer belongs to, by provenance first.
    const SiteAllocation& at = facts_.siteAllocations[a.siteIndex];
    const MemoryRegion* region = at.buffer;
    if (const MemoryRegion* r = at.threadgroupArgument) {
      checkThreadgroup(thread, a, r->begin, r->end, [&] {
        return std::make_pair(r->describe(a.arenaOffset, a.size), r->locate(a.arenaOffset, a.size));
      });
      return;
    }
    if (const ThreadgroupVariable* v = at.variable) {
      checkThreadgroup(thread, a, v->offset, v->offset + v->size, [&] {
        return std::make_pair(variableElement(*v, a.arenaOffset, a.size), variableLocation(*v, a.arenaOffset, a.size));
      });
      return;
    }
    if (!region && a.target == MemoryAccess::Target::Buffer) region = a.region;
    if (region) {
      if (a.address < region->begin || end > region->end) {
        report(thread, a, "out-of-bounds", spaceName(region->space), region->describe(a.address, a.size),
               region->locate(a.address, a.size),
               describeOverrun(a.address, end, region->begin, region->end) + " of " +
                   region->describe(region->base, a.size).substr(0, region->describe(region->base, a.size).find('[')));
        return;
      }
      if (region->readOnly && isWrite(site.op))
        report(thread, a, "write-to-read-only", spaceName(region->space), region->describe(a.address, a.size),
               region->locate(a.address, a.size), std::string("a write through a ") +
                   (region->space == MemoryRegion::Space::Constant ? "constant" : "const device") +
                   " argument (" + region->argument->typeSpelling + ")");
      return;
    }
    switch (a.target) {
      case MemoryAccess::Target::PrivateArray: {
        // Reached only when the inline check found the access outside its object.
        int64_t element = a.privateOffset >= 0 ? a.privateOffset / int64_t(site.privateElementSize)
                                                : -((-a.privateOffset + int64_t(site.privateElementSize) - 1) /
                                                    int64_t(site.privateElementSize));
        std::string memory = site.privateObject + "[" + std::to_string(element) + "]";
        uint64_t bytes = site.privateBytes;
        std::string overrun = a.privateOffset < 0 ? std::to_string(-a.privateOffset) + " bytes before the start"
                                                  : std::to_string(a.privateOffset + int64_t(a.size) - int64_t(bytes)) +
                                                        " bytes past the end";
        report(thread, a, "out-of-bounds", site.privateIsConstant ? "constant" : "thread", memory, {},
               overrun + " of " + (site.privateIsConstant ? "program-scope constant " : "thread-private array ") +
                   site.privateObject + " (" + std::to_string(bytes) + " bytes)");
        return;
      }
      case MemoryAccess::Target::Threadgroup:
        if (!a.variable && !a.region)
          report(thread, a, "out-of-bounds", "threadgroup", "threadgroup memory at byte " + std::to_string(a.arenaOffset),
                 {}, "the address is in no threadgroup variable or argument");
        return;
      case MemoryAccess::Target::Unknown: {
        // A pointer the IR does not tie to an argument (one stored in a struct and loaded back,
        // as MLX's loaders keep theirs): the nearest buffer says which argument it likely left.
        std::string why = "the address is in no buffer and no threadgroup allocation of this dispatch";
        if (const MemoryRegion* near = nearestBuffer(a.address, end)) {
          std::string name = near->describe(near->base, a.size);
          why += "; it is " + describeOverrun(a.address, end, near->begin, near->end) + " of " +
                 name.substr(0, name.find('[')) + " (" + std::to_string(near->end - near->begin) + " bytes)";
        }
        report(thread, a, "out-of-bounds", "device", "address " + hex(a.address), {}, why);
        return;
      }
      default: return;
    }
  }

 private:
  static std::string hex(uintptr_t v) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", (unsigned long long)v);
    return text;
  }

  // The buffer the access is closest to, if one is within a page of it.
  const MemoryRegion* nearestBuffer(uintptr_t begin, uintptr_t end) const {
    const MemoryRegion* best = nullptr;
    uintptr_t bestDistance = 4096;
    for (auto& r : facts_.buffers) {
      uintptr_t distance = begin >= r.end ? begin - r.end : end <= r.begin ? r.begin - end : 0;
      if (distance < bestDistance) {
        best = &r;
        bestDistance = distance;
      }
    }
    return best;
  }

  static std::string describeOverrun(uintptr_t begin, uintptr_t end, uintptr_t lo, uintptr_t hi) {
    if (begin < lo) return std::to_string(lo - begin) + " bytes before the start";
    return std::to_string(end - hi) + " bytes past the end";
  }

  // `describe` names the memory; it runs only when there is something to report (this is the
  // per-access hot path of every checked run).
  template <class Describe>
  void checkThreadgroup(const ThreadIdentity& thread, const MemoryAccess& a, uint64_t lo, uint64_t hi,
                        const Describe& describe) {
    if (a.target != MemoryAccess::Target::Threadgroup) {
      auto [memory, location] = describe();
      report(thread, a, "out-of-bounds", "threadgroup", memory, location,
             "the pointer left the threadgroup allocation it was derived from");
      return;
    }
    uint64_t begin = a.arenaOffset, end = a.arenaOffset + a.size;
    if (begin < lo || end > hi) {
      auto [memory, location] = describe();
      report(thread, a, "out-of-bounds", "threadgroup", memory, location,
             describeOverrun(begin, end, lo, hi) + " of " + memory.substr(0, memory.find('[')) + " (" +
                 std::to_string(hi - lo) + " bytes)");
    }
  }

  void report(const ThreadIdentity& thread, const MemoryAccess& a, const char* kind, const char* space,
              const std::string& memory, const Finding::Location& location, const std::string& why) {
    // An access outside its allocation is not performed: it would corrupt (or fault on) memory
    // that is not the kernel's. A write to read-only memory stays inside its buffer and happens.
    if (std::string(kind) == "out-of-bounds") a.suppress = true;
    Finding f;
    f.severity = Finding::Severity::Error;
    f.kind = kind;
    f.memorySpace = space;
    f.memory = memory;
    f.location = location;
    f.message = std::string(accessOpName(a.site->op)) + " of " + std::to_string(a.size) + " bytes at " +
                memory + ": " + why;
    f.accesses.push_back(facts_.record(*a.site, thread));
    f.locations.push_back(a.site->where);
    facts_.sink->report(std::move(f));
  }

  const DispatchFacts& facts_;
};

// ---------------------------------------------------------------------------------------------
// Races. Shadow state per barrier interval: the last writer and the readers of each word (or byte,
// where accesses split a word) since the last barrier that orders that memory. Conflicts are
// detected from the recorded accesses, not from the order the simulator happened to run threads in.

struct ShadowReader {
  uint16_t thread = 0;  // thread + 1; 0: empty
  bool atomic = false;
  uint8_t unused = 0;
  uint32_t site = 0, simdEpoch = 0;
};

// The state of a byte, or of the 4 bytes of a word that every access so far touched together.
struct ByteState {
  uint32_t epoch = 0;
  uint16_t writer = 0;  // thread + 1
  bool writeAtomic = false;
  bool valueKnown = false;
  uint32_t value = 0;   // what the writer stored, if valueKnown: 1 byte, or the word's 4
  uint32_t writeSite = 0, writeSimdEpoch = 0;
  // Two readers are enough to find a conflict with any later writer: the second is kept, where
  // possible, in another SIMD-group than the first (a race there is an error, not a hazard).
  ShadowReader readers[2];
};

// A 4-byte word: one state while every access of the interval covers the whole word, as float,
// int and vector elements are accessed (one check per access instead of four, 12 bytes of shadow
// per byte of memory instead of 44); a ByteState per byte (held apart) from the first access that
// covers part of it until the next interval.
struct WordState {
  ByteState whole;
  uint32_t splitEpoch = 0;  // the interval in which the word's bytes went their own ways
};

// Shadow for device memory, allocated a page at a time for the bytes a threadgroup touches.
// The pages of the running threadgroup are found through an open-addressed table keyed by a hash
// of the page number: buffers are allocated at aligned addresses, so their pages' numbers agree in
// the low bits, and a table indexed by those bits (a direct-mapped cache in front of a
// std::unordered_map, as this was) missed on every access of a kernel that reads two buffers and
// writes a third. Hand-written: the table is emptied at every threadgroup, which a general hash
// map does by freeing its nodes.
template <class Entry>
class ShadowPages {
 public:
  Entry& at(uintptr_t address) {
    uintptr_t number = address >> kPageBits;
    size_t mask = slots_.size() - 1;
    for (size_t i = slotOf(number, mask);; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.page && slot.number == number) return slot.page[address & (kPageSize - 1)];  // the usual case
      if (!slot.page) return claim(i, number)[address & (kPageSize - 1)];
    }
  }
  // Forgets every page, keeping their memory for reuse as it is: only for entries that tell stale
  // contents apart themselves (their epochs), as zeroing a 4096-entry page per threadgroup
  // cost more than the checks.
  void recycle() {
    for (size_t i : used_) slots_[i] = {};
    used_.clear();
    free_ = 0;
  }

 private:
  static constexpr unsigned kPageBits = 12;
  static constexpr uint64_t kPageSize = uint64_t(1) << kPageBits;
  struct Slot {
    uintptr_t number = 0;
    Entry* page = nullptr;
  };
  static size_t slotOf(uintptr_t number, size_t mask) { return size_t((number * 0x9E3779B97F4A7C15ull) >> 32) & mask; }

  Entry* claim(size_t i, uintptr_t number) {
    if (free_ == pages_.size()) pages_.push_back(std::make_unique<Entry[]>(kPageSize));
    Entry* page = pages_[free_++].get();
    slots_[i] = {number, page};
    used_.push_back(i);
    if (used_.size() * 2 > slots_.size()) grow();
    return page;
  }
  // At most half full: probes stay short.
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, {});
    size_t mask = slots_.size() - 1;
    used_.clear();
    for (const Slot& s : old) {
      if (!s.page) continue;
      size_t i = slotOf(s.number, mask);
      while (slots_[i].page) i = (i + 1) & mask;
      slots_[i] = s;
      used_.push_back(i);
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(64);
  std::vector<size_t> used_;                  // the slots in use, for recycle()
  std::vector<std::unique_ptr<Entry[]>> pages_;  // every page made; [0, free_) are in use
  size_t free_ = 0;
};

// An array of zero-initialised entries the size of a buffer, mapped without reserving memory:
// the kernel hands out (zeroed) pages on first touch, so only the parts a dispatch touches cost.
template <class Entry>
class ZeroedShadow {
 public:
  ZeroedShadow() = default;
  explicit ZeroedShadow(uint64_t count) : bytes_(std::max<uint64_t>(count, 1) * sizeof(Entry)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Huge pages where the kernel offers them: a page fault per 4 KiB of shadow cost more than
    // the checks of an element-wise kernel.
    madvise(p, bytes_, MADV_HUGEPAGE);
    entries_ = static_cast<Entry*>(p);
  }
  ZeroedShadow(ZeroedShadow&& o) noexcept : entries_(std::exchange(o.entries_, nullptr)), bytes_(o.bytes_) {}
  ZeroedShadow& operator=(ZeroedShadow&& o) noexcept {
    std::swap(entries_, o.entries_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~ZeroedShadow() {
    if (entries_) munmap(entries_, bytes_);
  }
  Entry* data() const { return entries_; }

 private:
  Entry* entries_ = nullptr;
  uint64_t bytes_ = 0;
};

// The last access of any threadgroup to a byte of device memory (all zero: none yet).
struct InterGroupEntry {
  uint32_t group;  // threadgroup + 1, modulo 2^32 (a dispatch has far fewer threadgroups)
  uint32_t site;
  uint16_t thread;  // index in its threadgroup (< 1024)
  bool write : 1, atomic : 1, valueKnown : 1;
  uint8_t value;
};
static_assert(sizeof(InterGroupEntry) == 12, "12 bytes per byte of a split word");

// The same for the bytes `mask` of a 4-byte word while one access describes them all, as it does
// for float, int and vector elements: 2 bytes of shadow per byte of device memory instead of 12,
// which for an element-wise kernel is most of the cost of a checked run (the kernel zeroes every
// shadow page it hands out: 23% of the checked add's time with the 12-byte word this was). A word
// two accesses share (two halves written by different threads) is split into an InterGroupEntry
// per byte. The value a plain write stored is not kept: the memory holds it until the next
// write, whose hook runs before its store. All zero: no access yet (an access's mask is never 0).
constexpr unsigned kWordSiteBits = 18, kWordThreadBits = 37;
struct InterGroupWord {
  uint64_t mask : 4;
  uint64_t write : 1, atomic : 1, valueKnown : 1, split : 1;
  // The access is also the first of its threadgroup's current barrier interval, which the
  // threadgroup's own race state does not hold yet (RaceDetector::claimFirstTouches).
  uint64_t firstTouch : 1;
  uint64_t site : kWordSiteBits;
  uint64_t thread : kWordThreadBits;  // in the dispatch: threadgroup * threads per threadgroup + index in it
};
static_assert(sizeof(InterGroupWord) == 8, "the inter-group shadow is the largest structure of a checked run");

// The stride of threadgroups in the dispatch-wide thread numbers of InterGroupWord.
uint64_t threadsPerGroup(const DispatchFacts& facts) {
  Size3 size = facts.geometry->requestedThreadgroupSize();
  return uint64_t(size[0]) * size[1] * size[2];
}

// Serialises the updates of one shadow word by workers running threadgroups at once (a word two
// threadgroups touch together is shared data, or the race being reported). Hand-written: a
// std::mutex per stripe is four times the size and slower uncontended.
class StripedSpinLocks {
 public:
  class Guard {
   public:
    Guard(std::atomic_flag* flag) : flag_(flag) {
      if (flag_)
        while (flag_->test_and_set(std::memory_order_acquire)) __builtin_ia32_pause();
    }
    ~Guard() {
      if (flag_) flag_->clear(std::memory_order_release);
    }

   private:
    std::atomic_flag* flag_;
  };
  // No lock at all with one worker. Keys are hashed: workers run runs of threadgroups a fixed
  // distance apart in memory, and a plain modulo put both on the same stripes.
  Guard lock(bool shared, uint64_t key) {
    return Guard(shared ? &stripes_[(key * 0x9E3779B97F4A7C15ull) >> (64 - kStripeBits)].flag : nullptr);
  }

 private:
  static constexpr unsigned kStripeBits = 10;
  struct alignas(64) Stripe {  // one cache line each: no false sharing between workers
    std::atomic_flag flag = ATOMIC_FLAG_INIT;
  };
  Stripe stripes_[size_t(1) << kStripeBits];
};

// Device-memory accesses across threadgroups: nothing orders threadgroups within a dispatch.
// Per buffer (DispatchFacts::buffers): a word entry per 4 bytes from the buffer's start, and byte
// entries for split words; both mapped up front (untouched pages cost nothing).
struct InterGroupState {
  struct Buffer {
    ZeroedShadow<InterGroupWord> words;
    ZeroedShadow<InterGroupEntry> bytes;
    uint64_t wordCount;
  };
  explicit InterGroupState(const DispatchFacts& facts) : shared(facts.workers > 1) {
    for (auto& r : facts.buffers) {
      uint64_t words = (r.end - r.begin + 3) / 4;
      perBuffer.push_back({ZeroedShadow<InterGroupWord>(words), ZeroedShadow<InterGroupEntry>(r.end - r.begin), words});
    }
  }
  Buffer& of(const DispatchFacts& facts, const MemoryRegion& region) {
    return perBuffer[size_t(&region - facts.buffers.data())];
  }

  // Words are read and written whole, as atomics. A word nobody has touched (all zero) is claimed
  // by its first touch without the lock, by a compare-and-swap from zero (claim): two workers
  // writing neighbouring threadgroups' outputs took turns at the stripe both their words are in
  // (a third of the checked soft cap's time on two workers). Every other change is made under the
  // word's lock (publish), so that lock-free claims and locked updates meet only at words that
  // were zero: a locked update of such a word is a compare-and-swap too, redone when a claim came
  // first.
  static InterGroupWord load(const InterGroupWord* w) {
    uint64_t bits = __atomic_load_n(reinterpret_cast<const uint64_t*>(w), __ATOMIC_RELAXED);
    InterGroupWord word;
    std::memcpy(&word, &bits, sizeof word);
    return word;
  }
  bool publish(InterGroupWord* w, const InterGroupWord& before, const InterGroupWord& after) {
    uint64_t expected = bitsOf(before), desired = bitsOf(after);
    if (!shared || expected != 0) {
      __atomic_store_n(reinterpret_cast<uint64_t*>(w), desired, __ATOMIC_RELAXED);
      return true;
    }
    return __atomic_compare_exchange_n(reinterpret_cast<uint64_t*>(w), &expected, desired, false, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
  }
  bool claim(InterGroupWord* w, const InterGroupWord& tag) {
    if (!shared) return bitsOf(load(w)) == 0 && publish(w, InterGroupWord{}, tag);
    // The compare-and-swap without a load first: a load of a line nobody has yet takes it
    // shared, and the swap then asks for it again.
    uint64_t expected = 0;
    return __atomic_compare_exchange_n(reinterpret_cast<uint64_t*>(w), &expected, bitsOf(tag), false,
                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  static uint64_t bitsOf(const InterGroupWord& w) {
    uint64_t bits;
    std::memcpy(&bits, &w, sizeof bits);
    return bits;
  }
  std::vector<Buffer> perBuffer;
  bool shared;  // several workers: lock each word while it is checked
  StripedSpinLocks locks;
};

class RaceDetector : public ExecutionObserver {
 public:
  RaceDetector(const DispatchFacts& facts, InterGroupState& inter)
      : facts_(facts), inter_(inter), groupThreads_(threadsPerGroup(facts)) {}

  void threadgroupBegin(const ThreadIdentity& first, char* arena) override {
    group_ = first;
    groupFirstThread_ = dispatchThread(first) - first.linear;
    // A new epoch marks every state of the earlier threadgroup stale: only the word states (whose
    // split marks are epochs too) need sizing.
    arenaWords_.resize((facts_.arenaBytes + 3) / 4);
    arenaBytes_.resize(arenaWords_.size() * 4);
    ++tgEpoch_;
    ++deviceEpoch_;
    deviceWords_.recycle();
    deviceBytes_.recycle();
    simdEpoch_.assign((first.groupSize[0] * first.groupSize[1] * first.groupSize[2] + kSimdWidth - 1) / kSimdWidth, 1);
  }

  void threadgroupBarrier(unsigned flags) override {
    if (flags & 2) ++tgEpoch_;  // mem_threadgroup orders threadgroup memory
    if (flags & 1) {  // mem_device orders device memory within the threadgroup
      ++deviceEpoch_;
      // First touches of the interval that ends: ordered now, like the states the epoch retires.
      for (InterGroupWord* slot : firstTouches_) {
        auto guard = inter_.locks.lock(inter_.shared, reinterpret_cast<uintptr_t>(slot) >> 12);
        InterGroupWord e = InterGroupState::load(slot), before = e;
        if (!e.firstTouch || !inThisGroup(e.thread)) continue;  // replaced by another threadgroup's access
        e.firstTouch = false;
        inter_.publish(slot, before, e);
      }
      firstTouches_.clear();
    }
  }
  void simdgroupBarrier(uint32_t simdgroup) override {
    // The SIMD-group epochs of first touches are the current ones: state them before they change.
    materialiseFirstTouches();
    if (simdgroup < simdEpoch_.size()) ++simdEpoch_[simdgroup];
  }
  void threadgroupEnd() override { firstTouches_.clear(); }  // other threadgroups ignore the marks

  // A plain read leaves a byte as it is when nobody wrote it in this interval and both reader
  // slots hold plain reads made since their SIMD-groups' last simdgroup_barrier: by any thread
  // when the two readers are in different SIMD-groups, else by the threads of theirs (check()).
  SettledReads threadgroupReadsSettled(uint64_t offset) const override {
    if (offset + 4 > facts_.arenaBytes) return {};
    const WordState& w = arenaWords_[offset / 4];
    if (w.splitEpoch != tgEpoch_) return settledFor(w.whole);
    SettledReads who{SettledReads::Everyone};
    for (uint64_t i = offset; i < offset + 4; ++i) who = who & settledFor(arenaBytes_[i]);
    return who;
  }

  // A plain read of read-only memory (a constant or const device argument) can race only with a
  // write there, which the bounds check reports as such (`write-to-read-only`): with it on, such
  // reads need no race state at all. Every thread of an element-wise kernel reads its inputs and
  // its `constant uint&` size this way; two workers took turns at the lock of that size's word
  // (row softmax: 5.7 s on two workers where one took 3.1).
  bool needsReadsInside(const MemoryRegion& buffer) const override { return !ignoresReadsOf(buffer); }
  bool defersFirstTouches() const override { return true; }
  // Two plain reads by different threads fill the word's two readers (check), which settledFor
  // then settles for everyone, or for their SIMD-group when they share one.
  SettledReads settledAfterTwoReads(uint64_t arenaOffset, uint32_t first, uint32_t second) const override {
    if (first == second || arenaOffset + 4 > facts_.arenaBytes) return {};
    uint32_t g0 = first / kSimdWidth, g1 = second / kSimdWidth;
    return g0 != g1 ? SettledReads{SettledReads::Everyone} : SettledReads{SettledReads::Simdgroup, g0};
  }
  // A store's first touch (claimFirstTouches) as the kernel's code can make it: the claim of the
  // word's inter-group entry from zero, unlogged (no barrier can end its mark in a thread loop).
  std::optional<StoreClaim> storeClaim(const MemoryRegion& buffer, uint32_t site) const override {
    if (buffer.begin % 4 || site >= (uint64_t(1) << kWordSiteBits)) return std::nullopt;
    InterGroupWord tag = firstTouchMark(true, true, site, 0);  // a plain store's value comes with it
    InterGroupWord one{};
    one.thread = 1;
    const InterGroupState::Buffer& shadow = inter_.perBuffer[size_t(&buffer - facts_.buffers.data())];
    StoreClaim claim;
    claim.bias = reinterpret_cast<uintptr_t>(shadow.words.data()) - buffer.begin / 4 * sizeof(InterGroupWord);
    claim.tag = InterGroupState::bitsOf(tag);
    claim.threadShift = unsigned(__builtin_ctzll(InterGroupState::bitsOf(one)));
    return claim;
  }
  bool ignoresClaimedStores(const MemoryRegion&) const override { return true; }  // its own record

  void access(const ThreadIdentity& thread, const MemoryAccess& a) override {
    reportedThisAccess_ = false;  // one report per access, however many bytes conflict
    if (a.target == MemoryAccess::Target::Threadgroup) {
      if (a.arenaOffset < facts_.arenaBytes)
        checkRange(thread, a, a.address, a.arenaOffset, std::min<uint64_t>(a.size, facts_.arenaBytes - a.arenaOffset),
                   tgEpoch_, "threadgroup", [&](uint64_t word) -> WordState& { return arenaWords_[word]; },
                   [&](uint64_t byte) -> ByteState& { return arenaBytes_[byte]; });
    } else if (a.target == MemoryAccess::Target::Buffer && a.region) {
      const MemoryRegion& r = *a.region;
      if (a.site->op == AccessOp::Load && ignoresReadsOf(r)) return;
      uint64_t size = std::min<uint64_t>(a.size, r.end - a.address);  // the bytes past the end are not accessed
      uint64_t firstTouches = claimFirstTouches(thread, a, r, size);
      uint64_t words = (a.address + size + 3) / 4 - a.address / 4;
      if (words < 64 && firstTouches == (uint64_t(1) << words) - 1) return;  // every word was a first touch
      // Device shadow is indexed by address: a word by address / 4, a byte by its address.
      checkRange(thread, a, a.address, a.address, size, deviceEpoch_, "device",
                 [&](uint64_t word) -> WordState& { return deviceWords_.at(word); },
                 [&](uint64_t byte) -> ByteState& { return deviceBytes_.at(byte); }, firstTouches);
      checkAcrossGroups(thread, a, r, size, firstTouches);
    }
  }

 private:
  bool ignoresReadsOf(const MemoryRegion& buffer) const { return buffer.readOnly && facts_.checks.bounds; }

  // Whether a plain read would leave `s` as it is (threadgroupReadsSettled).
  SettledReads settledFor(const ByteState& s) const {
    const ShadowReader& r0 = s.readers[0];
    const ShadowReader& r1 = s.readers[1];
    if (s.epoch != tgEpoch_ || s.writer || !r0.thread || !r1.thread || r0.atomic || r1.atomic) return {};
    uint32_t g0 = simdgroupOf(r0.thread), g1 = simdgroupOf(r1.thread);
    if (r0.simdEpoch != simdEpoch_[g0] || r1.simdEpoch != simdEpoch_[g1]) return {};
    return g0 != g1 ? SettledReads{SettledReads::Everyone} : SettledReads{SettledReads::Simdgroup, g0};
  }

  // The `n` bytes of one access from `address`, whose shadow index (arena offset or address) is
  // `index`, word by word: a word the access covers whole and whose bytes were not split in this
  // interval is one check; else the word's bytes are checked one by one, split off the word's
  // state first.
  // Words whose bit is set in `skipWords` (bit k: the access's k-th word) are left out.
  template <class Words, class Bytes>
  void checkRange(const ThreadIdentity& t, const MemoryAccess& a, uintptr_t address, uint64_t index, uint64_t n,
                  uint32_t epoch, const char* space, const Words& wordAt, const Bytes& byteAt, uint64_t skipWords = 0) {
    for (uint64_t i = 0; i < n;) {
      uint64_t at = index + i, first = at & 3;
      uint64_t take = std::min<uint64_t>(4 - first, n - i);
      if (uint64_t k = at / 4 - index / 4; k < 64 && (skipWords >> k & 1)) {
        i += take;
        continue;
      }
      WordState& w = wordAt(at / 4);
      if (w.splitEpoch != epoch) {
        if (take == 4) {
          check(t, a, w.whole, epoch, address + i, 4, space);
          i += 4;
          continue;
        }
        for (unsigned k = 0; k < 4; ++k) {
          ByteState& b = byteAt(at - first + k);
          b = w.whole;
          b.value = w.whole.value >> (8 * k) & 0xff;
        }
        w.splitEpoch = epoch;
      }
      for (uint64_t k = 0; k < take; ++k) check(t, a, byteAt(at + k), epoch, address + i + k, 1, space);
      i += take;
    }
  }

  // Across threadgroups, word by word (InterGroupWord); the bytes of split words one by one.
  void checkAcrossGroups(const ThreadIdentity& t, const MemoryAccess& a, const MemoryRegion& r, uint64_t size,
                         uint64_t skipWords) {
    if (size == 0) return;
    InterGroupState::Buffer& shadow = inter_.of(facts_, r);
    bool write = isWrite(a.site->op), atomic = isAtomic(a.site->op);
    bool known = write && !atomic && a.newValue;
    uint64_t me = dispatchThread(t);
    uint64_t begin = a.address - r.begin, end = begin + size;
    for (uint64_t word = begin / 4; word * 4 < end; ++word) {
      if (uint64_t k = word - begin / 4; k < 64 && (skipWords >> k & 1)) continue;
      uint64_t lo = std::max(begin, word * 4), hi = std::min(end, word * 4 + 4);
      uint8_t mask = uint8_t(((1u << (hi - lo)) - 1) << (lo - word * 4));
      InterGroupWord* slot = shadow.words.data() + word;
      // Locked before the entry is read. A stripe per 4 KiB of shadow (512 words, 2 KiB of the
      // buffer): a worker's next access is usually there, and the stripe's cache line stays with
      // that worker's core. With a stripe per 64 words, each worker's run of threadgroups went over
      // every stripe, and taking a lock the other core had taken last was a cache miss: two
      // workers on the element-wise add spent 60% of their time there (2.4 s where one took 2.5).
      auto guard = inter_.locks.lock(inter_.shared, reinterpret_cast<uintptr_t>(slot) >> 12);
      for (;;) {  // again only when a lock-free first touch claimed the word meanwhile
        const InterGroupWord before = InterGroupState::load(slot);
        InterGroupWord e = before;
        // The per-byte rule: a write, or an access to bytes nobody accessed, or any access where
        // the last one was a read, replaces the entry; a read after a write keeps it, and so does
        // an atomic access after a plain write (which conflicts with more: other groups' atomics).
        bool touched = e.mask;
        bool atomicOverPlain = atomic && touched && e.write && !e.atomic;
        bool replaces = !atomicOverPlain && (write || !touched || !e.write);
        bool keepsOthers = touched && (replaces ? (e.mask & ~mask) : (mask & ~e.mask));
        if (!e.split && keepsOthers) split(shadow, r, word, e);
        if (e.split) {
          inter_.publish(slot, before, e);  // touched: no claim can come between
          InterGroupEntry* bytes = shadow.bytes.data();
          for (uint64_t b = lo; b < hi; ++b) checkInterGroup(t, a, bytes[b], r.begin + b);
          break;
        }
        uint8_t overlap = uint8_t(e.mask & mask);
        if (overlap && !inThisGroup(e.thread) && (write || e.write) && !(atomic && e.atomic) && !reportedThisAccess_) {
          // Stores of the value the memory already holds from the other threadgroup's plain store
          // are a uniform write, not a race.
          bool sameValue = known && e.write && !e.atomic && e.valueKnown && !facts_.checks.reportUniformWrites;
          for (uint64_t b = lo; sameValue && b < hi; ++b)
            if (overlap & (1u << (b - word * 4)))
              sameValue = reinterpret_cast<const uint8_t*>(r.begin)[b] == a.newValue[r.begin + b - a.address];
          if (!sameValue)
            interGroupRace(t, a, e.thread / groupThreads_ + 1, e.site, uint16_t(e.thread % groupThreads_), e.write,
                           r.begin + word * 4 + __builtin_ctz(overlap));
        }
        if (replaces) {
          e.thread = me;
          e.site = a.siteIndex;
          e.write = write;
          e.atomic = atomic;
          e.valueKnown = known;
          e.mask = mask;
          e.firstTouch = false;
        } else if (!atomicOverPlain) {
          e.mask |= mask;
        }
        if (inter_.publish(slot, before, e)) break;  // `before` was touched (no report), or still is zero
      }
    }
  }

  // The first access to a word in the dispatch, when it is a plain access to the whole word,
  // is recorded in the word's inter-group state alone: nothing can conflict with it yet, and the
  // threadgroup's own state (the hashed pages of WordState, 48 bytes a word) would only repeat
  // it. A checked element-wise kernel's every store is such an access. The mark comes off at the
  // next device barrier (the access is then ordered for its threadgroup); until then, the next
  // access to the word from the same threadgroup, or a simdgroup_barrier, first states it in the
  // threadgroup's state (materialise), as the access would have left it. Returns the words
  // claimed (bit k: the access's k-th word), which the other checks then leave out. Another
  // threadgroup's access to a marked word is an access to a word touched by another threadgroup,
  // as before; it removes the mark when it replaces the entry.
  uint64_t claimFirstTouches(const ThreadIdentity& t, const MemoryAccess& a, const MemoryRegion& r, uint64_t size) {
    if (size == 0) return 0;
    InterGroupState::Buffer& shadow = inter_.of(facts_, r);
    bool plain = a.site->op == AccessOp::Load || a.site->op == AccessOp::Store;
    bool write = a.site->op == AccessOp::Store;
    uint64_t begin = a.address - r.begin, end = begin + size, claimed = 0;
    for (uint64_t word = begin / 4; word * 4 < end; ++word) {
      InterGroupWord* slot = shadow.words.data() + word;
      uint64_t k = word - begin / 4;
      if (plain && k < 64 && word * 4 >= begin && word * 4 + 4 <= end) {
        InterGroupWord tag = firstTouchMark(write, write && a.newValue, a.siteIndex, dispatchThread(t));
        if (inter_.claim(slot, tag)) {
          firstTouches_.push_back(slot);
          claimed |= uint64_t(1) << k;
          continue;
        }
      }
      // Only this threadgroup marks words it claims: a mark of its own is there or not, locked or not.
      InterGroupWord e = InterGroupState::load(slot);
      if (!e.firstTouch || !inThisGroup(e.thread)) continue;
      auto guard = inter_.locks.lock(inter_.shared, reinterpret_cast<uintptr_t>(slot) >> 12);
      e = InterGroupState::load(slot);
      if (e.firstTouch && inThisGroup(e.thread)) {
        InterGroupWord before = e;
        materialise(e, r.begin + word * 4);
        inter_.publish(slot, before, e);
      }
    }
    return claimed;
  }

  // The inter-group entry of a first touch: the whole word, marked as the first access of its
  // threadgroup's interval too (claimFirstTouches here, the kernel's code through storeClaim).
  static InterGroupWord firstTouchMark(bool write, bool valueKnown, uint32_t site, uint64_t thread) {
    InterGroupWord mark{};
    mark.mask = 0xF;
    mark.write = write;
    mark.valueKnown = valueKnown;
    mark.site = site;
    mark.thread = thread;
    mark.firstTouch = true;
    return mark;
  }

  // States a first touch (claimFirstTouches) in the threadgroup's race state of device word
  // `address` and takes the mark off.
  void materialise(InterGroupWord& e, uintptr_t address) {
    WordState& w = deviceWords_.at(address / 4);
    w.whole = ByteState{deviceEpoch_};
    uint16_t thread = uint16_t(e.thread - groupFirstThread_ + 1);
    uint32_t simdEpoch = simdEpoch_[simdgroupOf(thread)];
    if (e.write) {
      w.whole.writer = thread;
      w.whole.writeSite = uint32_t(e.site);
      w.whole.writeSimdEpoch = simdEpoch;
      w.whole.valueKnown = e.valueKnown;
      std::memcpy(&w.whole.value, reinterpret_cast<const void*>(address), 4);  // the memory holds what it stored
    } else {
      w.whole.readers[0] = {thread, false, 0, uint32_t(e.site), simdEpoch};
    }
    e.firstTouch = false;
  }
  void materialiseFirstTouches() {
    for (InterGroupWord* slot : firstTouches_) {
      auto guard = inter_.locks.lock(inter_.shared, reinterpret_cast<uintptr_t>(slot) >> 12);
      InterGroupWord e = InterGroupState::load(slot);
      if (!e.firstTouch || !inThisGroup(e.thread)) continue;
      InterGroupWord before = e;
      for (auto& b : inter_.perBuffer)
        if (slot >= b.words.data() && slot < b.words.data() + b.wordCount) {
          const MemoryRegion& r = facts_.buffers[size_t(&b - inter_.perBuffer.data())];
          materialise(e, r.begin + uint64_t(slot - b.words.data()) * 4);
        }
      inter_.publish(slot, before, e);
    }
    firstTouches_.clear();
  }

  // Threads are numbered across the dispatch in the inter-group words.
  uint64_t dispatchThread(const ThreadIdentity& t) const { return t.groupLinear * groupThreads_ + t.linear; }
  bool inThisGroup(uint64_t thread) const { return thread - groupFirstThread_ < groupThreads_; }

  // A word whose bytes two accesses now share: an entry per byte from here on, the value a plain
  // store left taken from the memory.
  void split(InterGroupState::Buffer& shadow, const MemoryRegion& r, uint64_t word, InterGroupWord& e) {
    InterGroupEntry* bytes = shadow.bytes.data();
    for (unsigned i = 0; i < 4; ++i) {
      if (!(e.mask & (1u << i))) continue;
      InterGroupEntry& b = bytes[word * 4 + i];
      b.group = uint32_t(e.thread / groupThreads_ + 1);
      b.site = e.site;
      b.thread = uint16_t(e.thread % groupThreads_);
      b.write = e.write;
      b.atomic = e.atomic;
      b.valueKnown = e.valueKnown;
      b.value = reinterpret_cast<const uint8_t*>(r.begin)[word * 4 + i];
    }
    e.split = true;
  }

  static uint32_t simdgroupOf(uint16_t thread) { return (thread - 1u) / kSimdWidth; }

  // One state for the `bytes` (1 or 4) of the access from `address`.
  void check(const ThreadIdentity& t, const MemoryAccess& a, ByteState& s, uint32_t epoch, uintptr_t address,
             unsigned bytes, const char* space) {
    if (s.epoch != epoch) s = ByteState{epoch};
    uint16_t me = uint16_t(t.linear + 1);
    bool atomic = isAtomic(a.site->op);
    uint32_t simdEpoch = simdEpoch_[t.simdgroup()];
    if (isWrite(a.site->op)) {
      // Hooks run before the store; a plain store's bytes come with the access.
      bool known = !atomic && a.newValue;
      uint32_t value = 0;
      // A word read as one load: a copy of a variable size stored it a byte at a time, and reading
      // the word back from those stores stalled (a third of this function in the tree reduction).
      if (known && bytes == 4) std::memcpy(&value, a.newValue + (address - a.address), 4);
      else if (known) value = a.newValue[address - a.address];
      bool sameValue = known && s.valueKnown && s.value == value && !facts_.checks.reportUniformWrites;
      if (s.writer && s.writer != me && !(atomic && s.writeAtomic) && !sameValue) {
        // The first byte whose value differs, as a check per byte would name it.
        uint32_t differs = known && s.valueKnown ? s.value ^ value : 0;
        race(t, a, s.writer - 1, s.writeSite, s.writeSimdEpoch, "write-write",
             address + (differs ? __builtin_ctz(differs) / 8 : 0), space);
      }
      // The reader to blame: one in another SIMD-group first (a race), else a lane of this one.
      const ShadowReader* blamed = nullptr;
      for (auto& r : s.readers)
        if (r.thread && r.thread != me && !(atomic && r.atomic) &&
            (!blamed || (simdgroupOf(blamed->thread) == t.simdgroup() && simdgroupOf(r.thread) != t.simdgroup())))
          blamed = &r;
      if (blamed) race(t, a, blamed->thread - 1, blamed->site, blamed->simdEpoch, "read-write", address, space);
      // An atomic write does not replace a plain writer of the interval: the plain write
      // conflicts with every later access of another thread, the atomic one only with plain ones
      // (a counter cleared with a plain store while other SIMD-groups increment it).
      if (!(atomic && s.writer && !s.writeAtomic)) {
        s.writer = me;
        s.writeSite = a.siteIndex;
        s.writeSimdEpoch = simdEpoch;
        s.writeAtomic = atomic;
        s.value = value;
        s.valueKnown = known;
      }
    } else {
      if (s.writer && s.writer != me && !(atomic && s.writeAtomic))
        race(t, a, s.writer - 1, s.writeSite, s.writeSimdEpoch, "write-read", address, space);
      ShadowReader r{me, atomic, 0, a.siteIndex, simdEpoch};
      ShadowReader* slot = nullptr;
      for (auto& existing : s.readers)
        if (existing.thread == me) {
          // The same thread reads again: its first read of the interval stays the one a conflict
          // names (so that repeated reads can be settled), unless this one comes after a
          // simdgroup_barrier, or is plain where the first was atomic (it conflicts with more).
          if (existing.simdEpoch == simdEpoch && !(existing.atomic && !atomic)) return;
          slot = &existing;
        }
      if (!slot)
        for (auto& existing : s.readers)
          if (!existing.thread) {
            slot = &existing;
            break;
          }
      if (!slot) {
        // Both taken by other threads: make room for another SIMD-group, or replace a reader of
        // this SIMD-group from before its last simdgroup_barrier.
        ShadowReader* a0 = &s.readers[0];
        ShadowReader* a1 = &s.readers[1];
        if (simdgroupOf(a0->thread) == simdgroupOf(a1->thread) && simdgroupOf(a0->thread) != t.simdgroup())
          slot = a1;
        else
          for (auto& existing : s.readers)
            if (simdgroupOf(existing.thread) == t.simdgroup() && existing.simdEpoch != simdEpoch) slot = &existing;
      }
      if (slot) *slot = r;
    }
  }

  void race(const ThreadIdentity& t, const MemoryAccess& a, uint32_t otherThread, uint32_t otherSite,
            uint32_t otherSimdEpoch, const char* hazard, uintptr_t address, const char* space) {
    ThreadIdentity other = t;
    other.linear = otherThread;
    bool sameSimdgroup = other.simdgroup() == t.simdgroup();
    if (sameSimdgroup && simdEpoch_[t.simdgroup()] != otherSimdEpoch) return;  // a simdgroup_barrier between
    if (reportedThisAccess_) return;
    reportedThisAccess_ = true;
    Finding f;
    f.kind = sameSimdgroup ? "lockstep-hazard" : "data-race";
    f.severity = sameSimdgroup ? Finding::Severity::Warning : Finding::Severity::Error;
    f.memorySpace = space;
    f.memory = describe(a, address);
    f.location = locationOf(a, address);
    f.hazard = hazard;
    const AccessSite& first = (*facts_.kernel->sites)[otherSite];
    f.accesses = {facts_.record(first, other), facts_.record(*a.site, t)};
    f.locations = {first.where, a.site->where};
    f.message = std::string(hazard) + " " + (sameSimdgroup ? "hazard" : "race") + " on " + f.memory +
                " between two threads of one " + (sameSimdgroup ? "SIMD-group" : "threadgroup") +
                (sameSimdgroup ? " with no barrier between them: it relies on the lanes running in lock step, "
                                 "which MSL does not promise"
                               : " not ordered by a barrier");
    f.hint = std::string(sameSimdgroup ? "add simdgroup_barrier(mem_flags::" : "add threadgroup_barrier(mem_flags::") +
             (std::string(space) == "threadgroup" ? "mem_threadgroup" : "mem_device") + ") between these lines";
    facts_.sink->report(std::move(f));
  }

  void checkInterGroup(const ThreadIdentity& t, const MemoryAccess& a, InterGroupEntry& e, uintptr_t address) {
    uint32_t me = uint32_t(t.groupLinear + 1);
    bool write = isWrite(a.site->op), atomic = isAtomic(a.site->op);
    bool known = write && !atomic && a.newValue;
    uint8_t value = known ? a.newValue[address - a.address] : 0;
    bool sameValue = known && e.write && !e.atomic && e.valueKnown && e.value == value && !facts_.checks.reportUniformWrites;
    if (e.group && e.group != me && (write || e.write) && !(atomic && e.atomic) && !sameValue && !reportedThisAccess_)
      interGroupRace(t, a, e.group, e.site, e.thread, e.write, address);
    if ((write || !e.group || !e.write) && !(atomic && e.group && e.write && !e.atomic)) {
      e.group = me;
      e.site = a.siteIndex;
      e.thread = uint16_t(t.linear);
      e.write = write;
      e.atomic = atomic;
      e.valueKnown = known;
      e.value = value;
    }
  }

  void interGroupRace(const ThreadIdentity& t, const MemoryAccess& a, uint64_t otherGroup, uint32_t otherSite,
                      uint16_t otherThread, bool otherWrite, uintptr_t address) {
    reportedThisAccess_ = true;
    bool write = isWrite(a.site->op);
    const AccessSite& first = (*facts_.kernel->sites)[otherSite];
    Finding f;
    f.kind = "data-race";
    f.memorySpace = "device";
    f.memory = describe(a, address);
    f.location = locationOf(a, address);
    f.hazard = otherWrite ? (write ? "write-write" : "write-read") : "read-write";
    ThreadIdentity other;
    other.groupLinear = otherGroup - 1;
    other.linear = otherThread;
    other.group = facts_.geometry->groupAt(other.groupLinear);
    other.groupSize = facts_.geometry->threadgroupSize(other.group);
    f.accesses = {facts_.record(first, other), facts_.record(*a.site, t)};
    f.locations = {first.where, a.site->where};
    f.message = f.hazard + " race on " + f.memory +
                " between threads of different threadgroups: nothing orders threadgroups within a dispatch";
    f.hint = "give each threadgroup its own part of the buffer, use atomics, or split the work into two dispatches";
    facts_.sink->report(std::move(f));
  }

  std::string describe(const MemoryAccess& a, uintptr_t address) const {
    if (a.variable) return variableElement(*a.variable, address - (a.address - a.arenaOffset), a.size);
    if (a.region) return a.region->describe(address, a.size);
    return "memory";
  }

  const DispatchFacts& facts_;
  InterGroupState& inter_;
  ThreadIdentity group_;
  std::vector<WordState> arenaWords_;  // per 4 bytes of threadgroup memory
  std::vector<ByteState> arenaBytes_;  // per byte, for the split words
  ShadowPages<WordState> deviceWords_;
  ShadowPages<ByteState> deviceBytes_;
  std::vector<InterGroupWord*> firstTouches_;  // marked in this threadgroup's barrier interval
  uint64_t groupThreads_;          // the stride of threadgroups in dispatch-wide thread numbers
  uint64_t groupFirstThread_ = 0;  // the running threadgroup's first thread in those numbers
  uint32_t tgEpoch_ = 0, deviceEpoch_ = 0;
  std::vector<uint32_t> simdEpoch_;
  bool reportedThisAccess_ = false;
};

// ---------------------------------------------------------------------------------------------
// Uninitialised reads: threadgroup memory no thread of this threadgroup wrote, and buffers the
// host never wrote (MLX outputs without init_value).
struct UninitState {
  explicit UninitState(const DispatchFacts& facts) {
    for (auto& r : facts.buffers) written.emplace_back(r.uninitialized ? r.end - r.begin : 0, 0);
  }
  // Per buffer of DispatchFacts::buffers the host did not write, a flag per byte; workers running
  // threadgroups at once read and set them with relaxed atomic operations.
  std::vector<std::vector<uint8_t>> written;
};

class UninitChecker : public ExecutionObserver {
 public:
  // The flags exist from the start: the executor asks for them before the first threadgroup.
  UninitChecker(const DispatchFacts& facts, UninitState& state)
      : facts_(facts), state_(state), written_(facts.arenaBytes, 0) {}

  void threadgroupBegin(const ThreadIdentity&, char*) override { written_.assign(facts_.arenaBytes, 0); }
  bool needsReadsInside(const MemoryRegion& buffer) const override { return buffer.uninitialized; }
  bool ignoresClaimedStores(const MemoryRegion& buffer) const override { return !buffer.uninitialized; }
  bool defersFirstTouches() const override { return true; }
  uint8_t* threadgroupWrittenFlags() override { return written_.data(); }

  // A read of bytes this threadgroup wrote has nothing to report.
  SettledReads threadgroupReadsSettled(uint64_t offset) const override {
    if (offset + 4 > written_.size()) return {};
    uint32_t flags;
    std::memcpy(&flags, &written_[offset], 4);
    return flags == 0x01010101u ? SettledReads{SettledReads::Everyone} : SettledReads{};
  }
  SettledReads settledAfterTwoReads(uint64_t offset, uint32_t, uint32_t) const override {
    return threadgroupReadsSettled(offset);  // reads change nothing here
  }

  void access(const ThreadIdentity& t, const MemoryAccess& a) override {
    bool write = isWrite(a.site->op);
    std::vector<uint8_t>* bits = nullptr;
    uint64_t offset = 0;
    bool threadgroup = a.target == MemoryAccess::Target::Threadgroup;
    if (threadgroup) {
      bits = &written_;
      offset = a.arenaOffset;
    } else if (a.target == MemoryAccess::Target::Buffer && a.region && a.region->uninitialized) {
      bits = &state_.written[size_t(a.region - facts_.buffers.data())];
      offset = a.address - a.region->begin;
    } else {
      return;
    }
    if (a.site->op == AccessOp::AtomicRMW) write = false;  // reads the old value first
    bool unwritten = false;
    uint64_t n = offset < bits->size() ? std::min<uint64_t>(a.size, bits->size() - offset) : 0;
    uint8_t* flag = bits->data() + (n ? offset : 0);
    if (n == 4 && offset % 4 == 0) {  // a word: one load, and no store where it was written already
      using FlagWord = uint32_t __attribute__((may_alias));  // the byte flags, read as one
      FlagWord* word = reinterpret_cast<FlagWord*>(flag);
      constexpr uint32_t kWritten = 0x01010101u;
      unwritten = __atomic_load_n(word, __ATOMIC_RELAXED) != kWritten;
      if (unwritten) __atomic_store_n(word, kWritten, __ATOMIC_RELAXED);
      n = 0;
    }
    for (uint64_t i = 0; i < n; ++i) {
      unwritten |= !__atomic_load_n(&flag[i], __ATOMIC_RELAXED);
      __atomic_store_n(&flag[i], uint8_t(1), __ATOMIC_RELAXED);
    }
    unwritten &= !write;
    if (!unwritten) return;
    std::string space = threadgroup ? "threadgroup" : "device";
    std::string memory = threadgroup ? (a.variable ? variableElement(*a.variable, a.arenaOffset, a.size)
                                        : a.region ? a.region->describe(a.arenaOffset, a.size)
                                                   : "threadgroup memory")
                                     : a.region->describe(a.address, a.size);
    Finding f;
    f.kind = "uninitialized-read";
    f.memorySpace = space;
    f.location = locationOf(a, a.address);
    f.memory = memory;
    f.message = std::string(accessOpName(a.site->op)) + " of " + memory + ", which " +
                (space == "threadgroup" ? "no thread of this threadgroup has written"
                                        : "neither the host nor any thread has written");
    f.accesses.push_back(facts_.record(*a.site, t));
    f.locations.push_back(a.site->where);
    f.hint = space == "threadgroup" ? "threadgroup memory starts with unspecified contents: write it (and "
                                      "add a barrier) before reading it"
                                    : "pass init_value, or write every element before reading it";
    facts_.sink->report(std::move(f));
  }

 private:
  const DispatchFacts& facts_;
  UninitState& state_;
  std::vector<uint8_t> written_;  // a flag per arena byte
};

struct SharedCheckState {
  explicit SharedCheckState(const DispatchFacts& facts) : inter(facts), uninit(facts) {}
  InterGroupState inter;
  UninitState uninit;
};

// ---------------------------------------------------------------------------------------------
// Alignment (opt-in): a vector load or store at an address its type is not aligned to. Apple GPUs
// execute it (ggml's kernel_mul_mm writes float4 rows at any float offset), and so does mslsim,
// but MSL gives a `device float4*` the alignment of a float4: other implementations need not.
class AlignmentChecker : public ExecutionObserver {
 public:
  explicit AlignmentChecker(const DispatchFacts& facts) : facts_(facts) {}
  bool needsEveryAccess() const override { return true; }  // an access inside its buffer may be misaligned
  SettledReads threadgroupReadsSettled(uint64_t) const override { return {SettledReads::Everyone}; }

  void access(const ThreadIdentity& thread, const MemoryAccess& a) override {
    const AccessSite& site = *a.site;
    if (!site.vectorAlign || a.address % site.vectorAlign == 0) return;
    Finding f;
    f.severity = Finding::Severity::Warning;
    f.kind = "misaligned-access";
    uint64_t aligned = uint64_t(1) << __builtin_ctzll(a.address);
    std::string memory;
    if (a.region && a.target == MemoryAccess::Target::Buffer) {
      memory = a.region->describe(a.address, a.size);
      f.memorySpace = a.region->space == MemoryRegion::Space::Constant ? "constant" : "device";
      f.location = a.region->locate(a.address, a.size);
    } else if (a.target == MemoryAccess::Target::Threadgroup) {
      memory = "threadgroup memory at byte " + std::to_string(a.arenaOffset);
      f.memorySpace = "threadgroup";
    } else {
      return;  // thread-private: the compiler's own layout
    }
    f.memory = memory;
    f.message = std::string(accessOpName(site.op)) + " of " + std::to_string(a.size) + " bytes (" +
                (site.vectorType.empty() ? "a vector object" : "a " + site.vectorType) + ", aligned to " +
                std::to_string(site.vectorAlign) + " bytes) at " + memory + ", an address aligned to " +
                std::to_string(aligned) + " bytes only";
    f.hint = "Apple GPUs execute it; MSL gives the pointer the vector's alignment, so other implementations need "
             "not: use a packed vector type (packed_float4) or read the elements";
    f.accesses.push_back(facts_.record(site, thread));
    f.locations.push_back(site.where);
    facts_.sink->report(std::move(f));
  }

 private:
  const DispatchFacts& facts_;
};

}  // namespace

std::string whyChecksCannotRun(const DispatchFacts& facts) {
  if (!facts.kernel->instrumented || !facts.checks.races) return "";
  size_t sites = facts.kernel->sites ? facts.kernel->sites->size() : 0;
  if (sites >= (uint64_t(1) << kWordSiteBits))
    return "kernel '" + facts.kernel->info.name + "' has " + std::to_string(sites) +
           " memory access sites, more than the race check can tell apart (" +
           std::to_string((uint64_t(1) << kWordSiteBits) - 1) + ")";
  unsigned __int128 threads = (unsigned __int128)facts.geometry->totalThreadgroups() * threadsPerGroup(facts);
  if (threads >= ((unsigned __int128)1 << kWordThreadBits))
    return "kernel '" + facts.kernel->info.name + "': the race check numbers at most 2^" +
           std::to_string(kWordThreadBits) + " threads in a dispatch, and this grid has more";
  return "";
}

void prepareCheckers(const DispatchFacts& facts, std::shared_ptr<void>& sharedState) {
  if (facts.kernel->instrumented && (facts.checks.races || facts.checks.uninit))
    sharedState = std::make_shared<SharedCheckState>(facts);
}

std::vector<std::unique_ptr<ExecutionObserver>> makeCheckers(const DispatchFacts& facts,
                                                             std::shared_ptr<void>& sharedState) {
  auto* shared = static_cast<SharedCheckState*>(sharedState.get());
  std::vector<std::unique_ptr<ExecutionObserver>> observers;
  if (!facts.kernel->instrumented) return observers;
  if (facts.checks.bounds) observers.push_back(std::make_unique<BoundsChecker>(facts));
  if (facts.checks.races) observers.push_back(std::make_unique<RaceDetector>(facts, shared->inter));
  if (facts.checks.uninit) observers.push_back(std::make_unique<UninitChecker>(facts, shared->uninit));
  if (facts.checks.align) observers.push_back(std::make_unique<AlignmentChecker>(facts));
  return observers;
}

}  // namespace mslsim
