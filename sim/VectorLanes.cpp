// Kernels with SIMD-group functions, unchecked, in the default order: each SIMD-group runs as one
// call of the kernel's SIMD-group function, its 32 lanes the lanes of vector instructions
// (LaneVectoriser.h), so a simd_sum is a vector reduction rather than a rendezvous of 32 threads.
// Barriers suspend the SIMD-group's coroutine; the scheduler releases them between SIMD-groups as
// it does between threads, after a JIT'd loop has run a region of every SIMD-group (or a call per
// SIMD-group, for functions too large for that loop; docs/architecture.md, "Executor").
#include "ThreadgroupScheduler.h"

namespace mslsim::execution {

void ThreadgroupScheduler::runSimdGroups(Size3 group, Size3 size, uint32_t count) {
  // The path's name says which loop runs the SIMD-groups: the JIT'd loop over their regions, or
  // the scheduler's call per SIMD-group (functions too large for that loop).
  dispatch_.notePath(dispatch_.kernel.simdGroupRegions || !dispatch_.kernel.simdGroupFunction->suspends
                         ? "vector lanes"
                         : "vector lanes, a call per SIMD-group");
  prepareStarter(group, size);  // thread 0's arguments; the function computes each lane's built-ins
  const uint32_t groups = (count + kSimdWidth - 1) / kSimdWidth;
  // One record per SIMD-group, named by its first thread (in reports of barriers and faults): the
  // same for every threadgroup of one size (this scheduler runs one dispatch, on this path).
  const bool sameRecords = threads_.size() == groups && simdRecordsSize_ == size;
  threads_.resize(groups);
  simdRecordsSize_ = size;
  for (uint32_t g = 0; g < groups; ++g) {
    SimThread& t = threads_[g];
    if (!sameRecords) {
      uint32_t i = g * kSimdWidth;
      t.linear = i;
      t.threads = std::min(kSimdWidth, count - i);
      t.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    }
    t.state = ThreadState::Runnable;
    t.coroutine = nullptr;
    t.flags = t.size = t.resultMask = 0;
    t.loops.clear();
  }
  frameCount_ = groups;
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
  if (dispatch_.kernel.simdGroupRegions) return runSimdGroupRegions(group, size, count, groups);
  void** args = starter_.args.data();
  const bool suspends = dispatch_.kernel.simdGroupFunction->suspends;
  for (;;) {
    bool ranAny = false;
    for (uint32_t g = 0; g < groups; ++g) {
      SimThread& t = threads_[g];
      if (t.state != ThreadState::Runnable) continue;
      ranAny = true;
      current_ = &t;
      if (!suspends) {
        reinterpret_cast<SimdGroupEntry>(dispatch_.kernel.simdGroups)(args, g, size[0], size[1], count);
        t.state = ThreadState::Done;
      } else {
        if (!t.coroutine) {
          frameOwner_ = g;
          t.coroutine = reinterpret_cast<SimdGroupCoroutine>(dispatch_.kernel.simdGroups)(args, g, size[0], size[1], count);
        } else {
          resumeCoroutine(t);
        }
        noteFinished(t);
      }
      current_ = nullptr;
      if (dispatch_.cancelled) break;
    }
    if (dispatch_.cancelled || dispatch_.stops(tGroupOrder)) break;
    if (ranAny) continue;
    if (!resolveBarrier(group)) break;
  }
}

// A SIMD-group function whose only hooks are threadgroup barriers: each call of its JIT'd region
// loop runs every runnable SIMD-group to its next barrier (the barrier hooks gone), and the frames
// say where each stopped. The records are then what the hooks would have left, and barriers are
// released, or their misuse reported, as above.
void ThreadgroupScheduler::runSimdGroupRegions(Size3 group, Size3 size, uint32_t count, uint32_t groups) {
  const RegionLoopLayout& layout = *dispatch_.kernel.simdGroupFunction->regionLoop;
  dispatch_.kernel.simdGroupStarts(starter_.args.data(), size[0], size[1], count, groups);
  runnable_.assign(groups, 1);
  regionMode_ = true;  // the checks' hooks learn the running SIMD-group from the loop
  runRegionRounds(layout, dispatch_.kernel.simdGroupRegions, groups, group, false);
  regionMode_ = false;
}

}  // namespace mslsim::execution
