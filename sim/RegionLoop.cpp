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
  dispatch_.notePath("region loop");
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

}  // namespace mslsim::execution
