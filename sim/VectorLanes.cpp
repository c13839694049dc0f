// Kernels with SIMD-group functions, unchecked, in the default order: each SIMD-group runs as one
// call of the kernel's SIMD-group function, its 32 lanes the lanes of vector instructions
// (LaneVectoriser.h), so a simd_sum is a vector reduction rather than a rendezvous of 32 threads.
// Barriers suspend the SIMD-group's coroutine; the scheduler releases them between SIMD-groups as
// it does between threads (docs/architecture.md, "Executor").
#include "ThreadgroupScheduler.h"

namespace mslsim::execution {

void ThreadgroupScheduler::runSimdGroups(Size3 group, Size3 size, uint32_t count) {
  dispatch_.notePath("vector lanes");
  prepareStarter(group, size);  // thread 0's arguments; the function computes each lane's built-ins
  const uint32_t groups = (count + kSimdWidth - 1) / kSimdWidth;
  // One record per SIMD-group, named by its first thread (in reports of barriers and faults).
  threads_.resize(groups);
  for (uint32_t g = 0; g < groups; ++g) {
    SimThread& t = threads_[g];
    uint32_t i = g * kSimdWidth;
    t.linear = i;
    t.threads = std::min(kSimdWidth, count - i);
    t.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    t.state = ThreadState::Runnable;
    t.coroutine = nullptr;
    t.flags = t.size = t.resultMask = 0;
    t.loops.clear();
  }
  frameCount_ = groups;
  atBarrier_ = atSimdCollective_ = 0;
  barrierSitesDiffer_ = false;
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

}  // namespace mslsim::execution
