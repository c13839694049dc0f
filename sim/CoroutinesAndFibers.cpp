// Everything else: each thread is resumed on its own until it blocks at a barrier or a
// SIMD-group function, as an LLVM coroutine (the default) or a fiber on its own stack; when every
// thread is blocked or done, the scheduler releases what it can. The schedules that interleave
// threads in another order run here, and so do SIMD-group functions (docs/architecture.md, "Executor").
#include "ThreadgroupScheduler.h"

namespace mslsim::execution {

void ThreadgroupScheduler::runThreadByThread(Size3 group, Size3 size, uint32_t count) {
  dispatch_.notePath(scheduling_ == ThreadScheduling::Fibers ? "fibers" : "coroutines");
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
      regionThread_ = t.linear;  // the running thread, for the settled-read tests (readSettled)
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

// Thread records, with their argument vectors, are reused from one threadgroup to the next.
void ThreadgroupScheduler::prepareThreads(Size3 group, Size3 size, uint32_t count) {
  threads_.resize(count);
  simdRecordsSize_ = {0, 0, 0};  // no longer SIMD-group records
  bool fibers = scheduling_ == ThreadScheduling::Fibers;
  if (fibers)
    while (stacks_.size() < count) stacks_.push_back(std::make_unique<FiberStack>());
  for (uint32_t i = 0; i < count; ++i) {
    SimThread& t = threads_[i];
    t.linear = i;
    t.threads = 1;
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
  // The buffers and the arena are the same for every threadgroup of the dispatch: bound once.
  if (starterArena_ != arena_.data()) {
    bindArguments(starter_);
    starterArena_ = arena_.data();
  }
  writeBuiltins(starter_, group, size);
}

// Runs `t` until it blocks at a barrier or SIMD-group function, or finishes.
void ThreadgroupScheduler::resume(SimThread& t) {
  if (scheduling_ == ThreadScheduling::Coroutines) {
    frameOwner_ = t.linear;
    if (!t.coroutine) {
      starter_.linear = t.linear;
      starter_.local = t.local;
      writeBuiltins(starter_, group_, groupSize_, /*varyingOnly=*/true);
      t.coroutine = reinterpret_cast<CoroutineEntryFunction>(dispatch_.kernel.entry)(starter_.args.data());
    } else {
      resumeCoroutine(t);
    }
    noteFinished(t);
    return;
  }
  transfer_t back = jump_fcontext(t.context, &t);
  t.context = back.fctx;
}

void* ThreadgroupScheduler::coroutineFrames(uint64_t size, uint64_t align) {
  if (__builtin_expect(!framesReady_, 0)) allocateFrames(size, align);
  return frames_.get();
}

void* ThreadgroupScheduler::coroutineFrame(uint64_t size, uint64_t align) {
  // Every thread asks for the same size; the first request of a threadgroup, made before any
  // frame is live, sizes the storage for all of them.
  if (__builtin_expect(!framesReady_, 0)) allocateFrames(size, align);
  char* frame = frames_.get() + frameStride_ * frameOwner_++;  // runRegions starts threads in order
  // No resume function yet (a frame always begins with the resume and destroy pointers).
  reinterpret_cast<void**>(frame)[0] = nullptr;
  reinterpret_cast<void**>(frame)[1] = nullptr;
  return frame;
}

void ThreadgroupScheduler::allocateFrames(uint64_t size, uint64_t align) {
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
  uint64_t stride = coroutineFrameStride(size, align);
  uint64_t bytes = stride * frameCount_;
  if (bytes > frameCapacity_ || coroutineFrameAlignment(align) > frameAlignment_) {
    frames_.reset(static_cast<char*>(std::aligned_alloc(coroutineFrameAlignment(align), bytes)));
    if (!frames_) throw std::bad_alloc();
    frameCapacity_ = bytes;
    frameAlignment_ = coroutineFrameAlignment(align);
  }
  frameStride_ = stride;
  framesReady_ = true;
}

bool ThreadgroupScheduler::isPrivateFrame(uintptr_t address, uint64_t size) const {
  if (scheduling_ != ThreadScheduling::Coroutines || !frames_) return false;
  uintptr_t begin = reinterpret_cast<uintptr_t>(frames_.get());
  return address >= begin && address + size <= begin + frameStride_ * frameCount_;
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

}  // namespace mslsim::execution
