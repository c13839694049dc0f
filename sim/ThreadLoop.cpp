// Threadgroups whose threads can reach no barrier or SIMD-group function: the threads run one
// after another on the worker's stack, or (in the default order) as one JIT'd loop over the whole
// threadgroup that LLVM's loop vectoriser can widen (docs/architecture.md, "Executor").
#include "ThreadgroupScheduler.h"

namespace mslsim::execution {

void ThreadgroupScheduler::runSequentially(Size3 group, Size3 size, uint32_t count) {
  // No barrier or SIMD-group function can be reached: run the threads one after another, reusing
  // one thread record.
  threads_.resize(1);
  simdRecordsSize_ = {0, 0, 0};  // no longer SIMD-group records
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
    regionThread_ = 0;
    dispatch_.notePath("thread loop");
    threadLoopMode_ = dispatch_.kernel.instrumented;
    if (!threadLoopMode_) current_ = nullptr;
    publishStoreClaims(true);  // no barrier can come: stores may claim their words themselves
    dispatch_.kernel.threadLoop(t.args.data(), size[0], size[1], size[2], &regionThread_);
    publishStoreClaims(false);
    threadLoopMode_ = false;
    return;
  }
  dispatch_.notePath("threads one by one");
  arrangeOrder(count);
  bool first = true;
  for (uint32_t i : order_) {
    t.linear = i;
    t.local = {i % size[0], i / size[0] % size[1], i / (size[0] * size[1])};
    regionThread_ = i;  // the running thread, for the settled-read tests (readSettled)
    writeBuiltins(t, group, size, /*varyingOnly=*/!first);
    first = false;
    dispatch_.kernel.entry(t.args.data());
  }
}

void ThreadgroupScheduler::moveToLoopThread() {
  SimThread& t = *current_;
  uint32_t i = regionThread_;
  if (i == t.linear + 1) {
    // The loop's next thread, as it usually is: a step instead of three divisions (the checked
    // element-wise add spent a tenth of its time in them).
    if (++t.local[0] == groupSize_[0]) {
      t.local[0] = 0;
      if (++t.local[1] == groupSize_[1]) {
        t.local[1] = 0;
        ++t.local[2];
      }
    }
  } else {
    t.local = {i % groupSize_[0], i / groupSize_[0] % groupSize_[1], i / (groupSize_[0] * groupSize_[1])};
  }
  t.linear = i;
}


}  // namespace mslsim::execution
