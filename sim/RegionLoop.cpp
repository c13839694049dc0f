// Barrier-only kernels in the default order: every thread is an LLVM coroutine frame and one JIT'd
// loop runs a barrier-to-barrier region of every thread (POCL's work-item loops), so a barrier
// costs no switch; under checks the frames say where each thread waits (docs/architecture.md, "Executor").
#include "ThreadgroupScheduler.h"

namespace mslsim::execution {

// Each thread starts its coroutine, in order, and runs to its first synchronisation point; then each
// call of the region loop runs the next region of every runnable thread.
void ThreadgroupScheduler::runRegions(Size3 group, Size3 size, uint32_t count) {
  dispatch_.notePath("region loop");
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
      if ((status & 3) != 1) return;
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
// frames say where each thread waits (RegionLoopLayout::barriers): the records are rebuilt from
// them (barrierWaitsFromFrames), and resolveBarrier releases the barrier, or reports its misuse, as
// for threads that ran as coroutines. The loop stores each thread's index before resuming it: the
// checks' hooks name that thread.
void ThreadgroupScheduler::runCheckedRegions(Size3 group, Size3 size, uint32_t count) {
  const RegionLoopLayout& layout = *dispatch_.kernel.regionLoopLayout;
  dispatch_.notePath("region loop");
  prepareThreads(group, size, count);  // thread records for the hooks; the starts' arguments
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
  current_ = nullptr;
  regionMode_ = true;
  frameOwner_ = 0;
  dispatch_.kernel.threadLoop(starter_.args.data(), size[0], size[1], size[2], &regionThread_);
  runnable_.resize(count);
  if (!dispatch_.cancelled && !dispatch_.stops(tGroupOrder) && barrierWaitsFromFrames(layout, count) &&
      resolveBarrier(group)) {
    bool anyFinished = false;
    for (uint32_t i = 0; i < count; ++i) {
      runnable_[i] = threads_[i].state == ThreadState::Runnable;
      anyFinished |= threads_[i].state == ThreadState::Done;
    }
    runRegionRounds(layout, dispatch_.kernel.regionLoop, count, group, anyFinished);
  }
  regionMode_ = false;
  current_ = nullptr;
}

void ThreadgroupScheduler::runRegionRounds(const RegionLoopLayout& layout, RegionLoopFunction loop, uint32_t records,
                                           Size3 group, bool anyFinished) {
  while (!dispatch_.cancelled && !dispatch_.stops(tGroupOrder)) {
    uint32_t status = loop(frames_.get(), frameStride_, records, runnable_.data(), &regionThread_);
    anyFinished |= (status & 4) != 0;
    if ((status & 3) == 1 && !anyFinished) {
      // The usual case: every record ran and stopped at one suspension point, a barrier (as
      // resolveBarrier releases it, without reading the frames: a tenth of the checked tree
      // reduction's time went to reading them).
      if (uint32_t index = status >> 8; index < layout.barriers.size() && index != layout.startIndex) {
        barrierReleased(layout.barriers[index].flags);
        continue;
      }
    }
    if (!barrierWaitsFromFrames(layout, records) || !resolveBarrier(group)) break;
    for (uint32_t i = 0; i < records; ++i) runnable_[i] = threads_[i].state == ThreadState::Runnable;
  }
}

// After a region loop without barrier hooks (over threads or SIMD-groups): each record's state, and
// the barrier it waits at, read from its frame, as the hook would have recorded them. False when
// every record has finished.
bool ThreadgroupScheduler::barrierWaitsFromFrames(const RegionLoopLayout& layout, uint32_t records) {
  atBarrier_ = 0;
  barrierSitesDiffer_ = false;
  barrierFlags_ = 0;
  for (uint32_t i = 0; i < records; ++i) {
    SimThread& t = threads_[i];
    if (*reinterpret_cast<void* const*>(frames_.get() + uint64_t(i) * frameStride_) == nullptr) {
      t.state = ThreadState::Done;
      continue;
    }
    uint32_t index = layout.indexMask ? suspensionIndex(layout, i) : 0;
    if (index >= layout.barriers.size() || index == layout.startIndex) return false;  // not known: cannot happen
    const RegionBarrier& b = layout.barriers[index];
    t.state = ThreadState::AtThreadgroupBarrier;
    t.site = {b.file.c_str(), b.line, b.column};
    t.flags = b.flags;
    if (atBarrier_++ == 0)
      barrierSite_ = t.site;
    else if (!(t.site == barrierSite_))  // one barrier may have several suspension points
      barrierSitesDiffer_ = true;
    barrierFlags_ |= b.flags;
  }
  return atBarrier_ > 0;
}

uint32_t ThreadgroupScheduler::suspensionIndex(const RegionLoopLayout& layout, uint32_t thread) const {
  const char* field = frames_.get() + uint64_t(thread) * frameStride_ + layout.indexOffset;
  uint32_t index = layout.indexBytes == 1   ? uint32_t(*reinterpret_cast<const uint8_t*>(field))
                   : layout.indexBytes == 2 ? uint32_t(*reinterpret_cast<const uint16_t*>(field))
                                            : *reinterpret_cast<const uint32_t*>(field);
  return index & layout.indexMask;
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

}  // namespace mslsim::execution
