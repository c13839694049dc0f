// Work: compute encoders record dispatches into command buffers; committed buffers run in order on
// their queue's thread; a dispatch whose checks find an error fails its command buffer.
#include "Objects.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <iostream>
#include <mutex>
#include <thread>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <cstdio>

namespace mslsim::metal {

namespace {

constexpr const char* kCommandBufferErrorDomain = "MTLCommandBufferErrorDomain";

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

mslsim::Size3 size3(MTL::Size s, const char* what, std::string& problem) {
  for (NS::UInteger v : {s.width, s.height, s.depth})
    if (v > UINT32_MAX && problem.empty()) problem = std::string(what) + " is larger than 2^32 in one dimension";
  return {uint32_t(s.width), uint32_t(s.height), uint32_t(s.depth)};
}

// Lets go of what finished command buffers held (their dispatches' buffers and pipelines, their
// handlers and what those captured), on a thread of its own. Releasing may need a lock some
// other thread holds while it waits for the GPU: MLX's arrays release Python objects, which takes
// the GIL that a Python thread in waitUntilCompleted keeps. Done on the queue's thread, that
// release would also hold up every command buffer queued behind, and a wait for one of those
// would never end (MLX's test_zero_copy hung so). On a GPU the next buffer runs whatever the CPU
// does with the last one's handlers.
class Releaser {
 public:
  static Releaser& instance() {
    static Releaser* releaser = new Releaser();  // never destroyed: its thread may outlive main
    return *releaser;
  }
  void release(std::shared_ptr<void> held) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.push_back(std::move(held));
    }
    ready_.notify_one();
  }

 private:
  Releaser() {
    std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        ready_.wait(lock, [&] { return !pending_.empty(); });
        std::shared_ptr<void> next = std::move(pending_.front());
        pending_.pop_front();
        lock.unlock();
        next.reset();
        lock.lock();
      }
    }).detach();
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<void>> pending_;
};

}  // namespace

std::string DeviceObject::execute(const RecordedDispatch& d) {
  if (!d.problem.empty()) return d.problem;
  auto* pipeline = static_cast<const ComputePipelineStateObject*>(d.pipeline.get());
  const std::string& kernel = pipeline->kernel.name();
  uint64_t threads = uint64_t(d.threadgroup[0]) * d.threadgroup[1] * d.threadgroup[2];
  if (threads > pipeline->maxThreads)
    return "kernel '" + kernel + "': a threadgroup of " + std::to_string(threads) +
           " threads is more than the pipeline's maxTotalThreadsPerThreadgroup (" +
           std::to_string(pipeline->maxThreads) + ")";
  try {
    mslsim::Dispatch dispatch(pipeline->kernel);
    const mslsim::KernelInfo& info = pipeline->kernel.info();
    for (auto& [index, binding] : d.buffers) {
      // Metal ignores buffers bound at indices the kernel does not declare (MLX binds sizes some
      // kernel variants never read).
      const mslsim::ArgumentInfo* argument = info.bufferArgument(index);
      if (!argument) continue;
      // Metal: "For buffers in the device address space, align the offset to the data type
      // consumed by the compute function (which is always less than or equal to 16 bytes)."
      uint64_t align = std::min<uint64_t>(argument->pointeeAlign, 16);
      if (binding.buffer && argument->space == mslsim::AddressSpace::Device && align > 1 && binding.offset % align)
        return "API misuse: setBuffer: offset " + std::to_string(binding.offset) + " at index " + std::to_string(index) +
               " is not a multiple of " + std::to_string(align) + ", the alignment of argument '" + argument->name +
               "' (" + argument->typeSpelling + ") of kernel '" + kernel + "'";
      if (binding.buffer) {
        auto* b = static_cast<BufferObject*>(binding.buffer.get());
        dispatch.bind(index, b->data, b->length, binding.offset);
      } else {
        dispatch.bind(index, binding.bytes->data(), binding.bytes->size(), 0);
      }
    }
    for (auto& [index, bytes] : d.threadgroupMemory)
      if (info.threadgroupArgument(index)) dispatch.threadgroupMemory(index, bytes);
    mslsim::Report report;
    {
      std::lock_guard<std::mutex> lock(execution);
      TimedWork timed(stats.dispatches);
      report = dispatch.run(d.grid, d.threadgroup, d.mode, dispatchOptions);
    }
    stats.countTier(report.codeTier, report.milliseconds);
    if (!report.hasErrors() && report.completed) return "";
    if (!reportJsonPath.empty()) {
      std::lock_guard<std::mutex> lock(reportMutex);
      std::string json = report.json;
      for (auto& c : json)
        if (c == '\n') c = ' ';
      std::ofstream out(reportJsonPath, std::ios::app);
      out << json << "\n";
      if (!out) warnUnwritable("MSLSIM_METAL_REPORT_JSON", reportJsonPath);
    }
    if (!reportSarifPath.empty()) {
      std::lock_guard<std::mutex> lock(reportMutex);
      sarifFindings.push_back({kernel, report.findings});
      // Written under a temporary name and renamed, so a reader never sees half a log.
      std::string tmp = reportSarifPath + ".tmp" + std::to_string(::getpid());
      bool written = bool(std::ofstream(tmp) << mslsim::findingsToSarif(sarifFindings));
      if (!written || std::rename(tmp.c_str(), reportSarifPath.c_str()) != 0) {
        std::remove(tmp.c_str());
        warnUnwritable("MSLSIM_METAL_REPORT_SARIF", reportSarifPath);
      }
    }
    std::string text = report.text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::string failure = "mslsim found errors in kernel '" + kernel + "':\n" +
                          (text.empty() ? std::string("the dispatch did not complete") : text);
    // Report mode: the program goes on with what the dispatch computed (a dispatch that did not
    // complete still fails: its results are not there).
    if (reportFindings && report.completed) {
      std::lock_guard<std::mutex> lock(reportMutex);
      std::cerr << failure << "\n";
      return "";
    }
    return failure;
  } catch (const mslsim::Error& e) {
    return "kernel '" + kernel + "': " + e.what();
  }
}

// --- Command buffers ---------------------------------------------------------------------------------

void CommandBufferObject::setStatus(MTL::CommandBufferStatus s) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    status = s;
  }
  changed.notify_all();
}

void CommandBufferObject::misused(const std::string& call, const std::string& what) {
  std::string text = call + ": " + what;
  std::cerr << "mslsim (Metal): API misuse: " << text << " (Metal's API validation stops here; the command buffer will fail)\n";
  std::lock_guard<std::mutex> lock(mutex);
  if (misuse.empty()) misuse = text;
}

void CommandBufferObject::run() {
  NS::SharedPtr<NS::AutoreleasePool> pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
  setStatus(MTL::CommandBufferStatusScheduled);
  for (auto& handler : scheduledHandlers) handler(this);
  DeviceObject& d = mslsim::metal::device(queue->device());
  startTime = now();
  // What was misused while encoding (an encoder opened on it after commit may still add to it).
  std::string misusedBefore;
  {
    std::lock_guard<std::mutex> lock(mutex);
    misusedBefore = misuse;
  }
  std::string failure = misusedBefore.empty() ? "" : "API misuse: " + misusedBefore;
  for (auto& command : commands) {
    if (command.event) {
      // Signals still happen after a failure, so that work waiting on this buffer is not stuck.
      auto* event = static_cast<MTL::SharedEvent*>(command.event->event.get());
      if (command.event->signal)
        event->setSignaledValue(command.event->value);
      else
        static_cast<SharedEventObject*>(event)->waitFor(command.event->value);
    } else if (failure.empty()) {
      failure = d.execute(*command.dispatch);
    }
  }
  endTime = now();
  if (!failure.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    error.reset(makeError(kCommandBufferErrorDomain, MTL::CommandBufferErrorInternal, failure));
  }
  // What the dispatches held (buffers, pipelines) is released with the handlers, after the
  // waiters go: a no-copy buffer's deallocator may need the waiter's lock too (MLX's zero-copy
  // arrays release a Python object).
  auto held = std::move(commands);
  setStatus(failure.empty() ? MTL::CommandBufferStatusCompleted : MTL::CommandBufferStatusError);
  for (auto& handler : completedHandlers) handler(this);
  // Waiters go once the handlers have run, so that what a handler did is visible after
  // waitUntilCompleted (MLX reads the error its handler records). What the handlers and the
  // dispatches hold is let go by the Releaser, after that and off this thread: releasing it may
  // need a lock the waiter holds (MLX's Python arrays take the GIL, which a Python thread in
  // waitUntilCompleted keeps), and the buffer may be gone by then, so it leaves it first.
  struct Held {
    std::vector<Command> commands;
    std::vector<PlainCallback<MTL::CommandBuffer*>> completed, scheduled;
  };
  auto garbage = std::make_shared<Held>(Held{std::move(held), std::move(completedHandlers), std::move(scheduledHandlers)});
  {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
  }
  changed.notify_all();
  Releaser::instance().release(std::move(garbage));
}

// --- Queues ------------------------------------------------------------------------------------------

void CommandQueueObject::submit(CommandBufferObject* buffer) {
  std::lock_guard<std::mutex> lock(work->mutex);
  work->pending.push_back(retained(buffer));
  if (!thread.joinable())
    thread = std::thread([work = work] {
      std::unique_lock<std::mutex> lock(work->mutex);
      for (;;) {
        work->ready.wait(lock, [&] { return work->stopping || !work->pending.empty(); });
        if (work->pending.empty()) return;
        CommandBufferObject* next = work->pending.front();
        work->pending.pop_front();
        lock.unlock();
        next->run();
        next->release();
        lock.lock();
      }
    });
  work->ready.notify_one();
}

CommandQueueObject::~CommandQueueObject() {
  {
    std::lock_guard<std::mutex> lock(work->mutex);
    work->stopping = true;
  }
  work->ready.notify_one();
  if (thread.joinable()) {
    if (thread.get_id() == std::this_thread::get_id())
      thread.detach();  // released by its own completion handler: it ends by itself
    else
      thread.join();
  }
}

// --- Encoders ----------------------------------------------------------------------------------------

RecordedDispatch* ComputeCommandEncoderObject::record(mslsim::DispatchMode mode, MTL::Size grid, MTL::Size threadgroup) {
  auto dispatch = std::make_unique<RecordedDispatch>();
  dispatch->pipeline = pipeline;
  dispatch->buffers = buffers;
  dispatch->threadgroupMemory = threadgroupMemory;
  dispatch->mode = mode;
  dispatch->grid = size3(grid, "the grid", dispatch->problem);
  dispatch->threadgroup = size3(threadgroup, "the threadgroup", dispatch->problem);
  if (ended) dispatch->problem = "a dispatch was encoded after endEncoding()";
  if (!pipeline) dispatch->problem = "a dispatch was encoded with no compute pipeline state set";
  auto* cb = static_cast<CommandBufferObject*>(commandBuffer.get());
  // Its queue may be running it already: the dispatch is not added.
  if (commandBuffer->status() >= MTL::CommandBufferStatusCommitted) {
    cb->misused("dispatch", "a dispatch encoded into a command buffer already committed");
    return nullptr;
  }
  Command command;
  command.dispatch = std::move(dispatch);
  cb->commands.push_back(std::move(command));
  return cb->commands.back().dispatch.get();
}

}  // namespace mslsim::metal

using namespace mslsim::metal;

namespace MTL {

#define MSLSIM_SELF static_cast<CommandBufferObject*>(this)
#define MSLSIM_CSELF static_cast<const CommandBufferObject*>(this)

namespace {

ComputeCommandEncoder* newEncoder(CommandBuffer* buffer, DispatchType type) {
  auto* b = static_cast<CommandBufferObject*>(buffer);
  if (b->openEncoder)
    b->misused("computeCommandEncoder", "a new encoder while the previous one is still encoding (call endEncoding first)");
  if (buffer->status() >= CommandBufferStatusCommitted)
    b->misused("computeCommandEncoder", "an encoder on a command buffer already committed");
  auto* e = new ComputeCommandEncoderObject();
  e->commandBuffer.reset(buffer);
  e->dispatchType = type;
  static_cast<CommandBufferObject*>(buffer)->openEncoder = e;
  return mslsim::metal::autoreleased<ComputeCommandEncoder>(e);
}

CommandBuffer* newCommandBuffer(CommandQueue* queue, bool retainedReferences, CommandBufferErrorOption options) {
  auto* b = new CommandBufferObject();
  b->queue.reset(queue);
  b->retainedReferences = retainedReferences;
  b->errorOptions = options;
  return mslsim::metal::autoreleased<CommandBuffer>(b);
}

}  // namespace

ComputeCommandEncoder* CommandBuffer::computeCommandEncoder() { return newEncoder(this, DispatchTypeSerial); }
ComputeCommandEncoder* CommandBuffer::computeCommandEncoder(DispatchType type) { return newEncoder(this, type); }
ComputeCommandEncoder* CommandBuffer::computeCommandEncoder(const ComputePassDescriptor* d) {
  return newEncoder(this, d ? static_cast<const ComputePassDescriptorObject*>(d)->dispatchType : DispatchTypeSerial);
}

void CommandBuffer::enqueue() {
  if (MSLSIM_SELF->status == CommandBufferStatusNotEnqueued) MSLSIM_SELF->setStatus(CommandBufferStatusEnqueued);
}

void CommandBuffer::commit() {
  auto* b = MSLSIM_SELF;
  if (status() >= CommandBufferStatusCommitted) {  // Metal's validation stops here; it changes nothing
    std::cerr << "mslsim (Metal): API misuse: commit: the command buffer was already committed "
                 "(Metal's API validation stops here; the second commit is ignored)\n";
    return;
  }
  if (b->openEncoder) b->misused("commit", "an encoder is still encoding (call endEncoding before commit)");
  b->setStatus(CommandBufferStatusCommitted);
  static_cast<CommandQueueObject*>(b->queue.get())->submit(b);
}

namespace {
// A wait for a command buffer nobody committed would never end.
bool waitable(CommandBuffer* buffer, const char* call) {
  if (buffer->status() >= CommandBufferStatusCommitted) return true;
  std::cerr << "mslsim (Metal): API misuse: " << call
            << ": the command buffer was not committed, so it would never complete (Metal's API validation "
               "stops here; the wait returns at once)\n";
  return false;
}
}  // namespace

void CommandBuffer::waitUntilScheduled() {
  auto* b = MSLSIM_SELF;
  if (!waitable(this, "waitUntilScheduled")) return;
  std::unique_lock<std::mutex> lock(b->mutex);
  b->changed.wait(lock, [&] { return b->status >= CommandBufferStatusScheduled; });
}

void CommandBuffer::waitUntilCompleted() {
  auto* b = MSLSIM_SELF;
  if (!waitable(this, "waitUntilCompleted")) return;
  std::unique_lock<std::mutex> lock(b->mutex);
  b->changed.wait(lock, [&] { return b->finished; });
}

void CommandBuffer::addScheduledHandler(void* handler, void (*invoke)(void*, CommandBuffer*), void (*destroy)(void*)) {
  MSLSIM_SELF->scheduledHandlers.emplace_back(handler, invoke, destroy);
}
void CommandBuffer::addCompletedHandler(void* handler, void (*invoke)(void*, CommandBuffer*), void (*destroy)(void*)) {
  MSLSIM_SELF->completedHandlers.emplace_back(handler, invoke, destroy);
}

void CommandBuffer::encodeSignalEvent(const Event* event, uint64_t value) {
  // Its queue may be running it already: nothing is added to what it runs.
  if (status() >= CommandBufferStatusCommitted)
    return MSLSIM_SELF->misused("encodeSignalEvent", "an event signal encoded into a command buffer already committed");
  Command c;
  c.event = std::make_unique<EventCommand>();
  c.event->event.reset(event);
  c.event->value = value;
  c.event->signal = true;
  MSLSIM_SELF->commands.push_back(std::move(c));
}

void CommandBuffer::encodeWait(const Event* event, uint64_t value) {
  if (status() >= CommandBufferStatusCommitted)
    return MSLSIM_SELF->misused("encodeWait", "an event wait encoded into a command buffer already committed");
  Command c;
  c.event = std::make_unique<EventCommand>();
  c.event->event.reset(event);
  c.event->value = value;
  MSLSIM_SELF->commands.push_back(std::move(c));
}

CommandBufferStatus CommandBuffer::status() const {
  std::lock_guard<std::mutex> lock(MSLSIM_CSELF->mutex);
  return MSLSIM_CSELF->status;
}
NS::Error* CommandBuffer::error() const {
  std::lock_guard<std::mutex> lock(MSLSIM_CSELF->mutex);
  return MSLSIM_CSELF->error.get();
}
CommandBufferErrorOption CommandBuffer::errorOptions() const { return MSLSIM_CSELF->errorOptions; }
bool CommandBuffer::retainedReferences() const { return MSLSIM_CSELF->retainedReferences; }
CommandQueue* CommandBuffer::commandQueue() const { return MSLSIM_CSELF->queue.get(); }
Device* CommandBuffer::device() const { return MSLSIM_CSELF->queue->device(); }
NS::String* CommandBuffer::label() const { return MSLSIM_CSELF->label.get(); }
void CommandBuffer::setLabel(const NS::String* l) { MSLSIM_SELF->label.reset(l); }
void CommandBuffer::pushDebugGroup(const NS::String*) {}
void CommandBuffer::popDebugGroup() {}
double CommandBuffer::kernelStartTime() const { return MSLSIM_CSELF->startTime; }
double CommandBuffer::kernelEndTime() const { return MSLSIM_CSELF->endTime; }
double CommandBuffer::GPUStartTime() const { return MSLSIM_CSELF->startTime; }
double CommandBuffer::GPUEndTime() const { return MSLSIM_CSELF->endTime; }
void CommandBuffer::useResidencySet(const ResidencySet*) {}
void CommandBuffer::useResidencySets(const ResidencySet* const[], NS::UInteger) {}
#undef MSLSIM_SELF
#undef MSLSIM_CSELF

// --- Encoders ----------------------------------------------------------------------------------------

void CommandEncoder::endEncoding() {
  // Compute encoders are the only encoders there are.
  auto* e = static_cast<ComputeCommandEncoderObject*>(this);
  e->ended = true;
  // What the encoder held is in its recorded dispatches now; they hold it until they have run.
  e->pipeline.reset();
  e->buffers.clear();
  e->threadgroupMemory.clear();
  auto* b = static_cast<CommandBufferObject*>(e->commandBuffer.get());
  if (b->openEncoder == e) b->openEncoder = nullptr;
}
Device* CommandEncoder::device() const { return static_cast<const ComputeCommandEncoderObject*>(this)->commandBuffer->device(); }
NS::String* CommandEncoder::label() const { return static_cast<const ComputeCommandEncoderObject*>(this)->label.get(); }
void CommandEncoder::setLabel(const NS::String* l) { static_cast<ComputeCommandEncoderObject*>(this)->label.reset(l); }
void CommandEncoder::pushDebugGroup(const NS::String*) {}
void CommandEncoder::popDebugGroup() {}
void CommandEncoder::insertDebugSignpost(const NS::String*) {}

#define MSLSIM_SELF static_cast<ComputeCommandEncoderObject*>(this)
namespace {
// Metal's argument tables: buffer (and threadgroup memory) indices 0 to 30.
constexpr NS::UInteger kArgumentIndices = 31;
// setBytes: "Use this method for single-use data smaller than 4 KB."
constexpr NS::UInteger kSetBytesLimit = 4096;

CommandBufferObject& bufferOf(ComputeCommandEncoderObject* e) {
  return *static_cast<CommandBufferObject*>(e->commandBuffer.get());
}
bool validIndex(ComputeCommandEncoderObject* e, const char* call, NS::UInteger index) {
  if (index < kArgumentIndices) return true;
  bufferOf(e).misused(call, "index " + std::to_string(index) + " is out of range (Metal has indices 0 to 30)");
  return false;
}
}  // namespace

void ComputeCommandEncoder::setComputePipelineState(const ComputePipelineState* state) { MSLSIM_SELF->pipeline.reset(state); }

void ComputeCommandEncoder::setBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger index) {
  if (!validIndex(MSLSIM_SELF, "setBuffer", index)) return;
  if (buffer && offset > buffer->length())
    bufferOf(MSLSIM_SELF).misused("setBuffer", "offset " + std::to_string(offset) + " is past the end of the buffer (" +
                                                   std::to_string(buffer->length()) + " bytes) at index " +
                                                   std::to_string(index));
  RecordedDispatch::BufferBinding b;
  b.buffer.reset(buffer);
  b.offset = offset;
  if (buffer)
    MSLSIM_SELF->buffers[unsigned(index)] = std::move(b);
  else
    MSLSIM_SELF->buffers.erase(unsigned(index));
}
void ComputeCommandEncoder::setBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger, NS::UInteger index) {
  setBuffer(buffer, offset, index);
}
void ComputeCommandEncoder::setBuffers(const Buffer* const buffers[], const NS::UInteger offsets[], NS::Range range) {
  for (NS::UInteger i = 0; i < range.length; ++i) setBuffer(buffers[i], offsets[i], range.location + i);
}
void ComputeCommandEncoder::setBufferOffset(NS::UInteger offset, NS::UInteger index) {
  if (!validIndex(MSLSIM_SELF, "setBufferOffset", index)) return;
  auto it = MSLSIM_SELF->buffers.find(unsigned(index));
  if (it != MSLSIM_SELF->buffers.end() && it->second.buffer && offset > it->second.buffer->length())
    bufferOf(MSLSIM_SELF).misused("setBufferOffset", "offset " + std::to_string(offset) + " is past the end of the buffer (" +
                                                         std::to_string(it->second.buffer->length()) + " bytes) at index " +
                                                         std::to_string(index));
  if (it != MSLSIM_SELF->buffers.end()) it->second.offset = offset;
}

void ComputeCommandEncoder::setBytes(const void* bytes, NS::UInteger length, NS::UInteger index) {
  if (!validIndex(MSLSIM_SELF, "setBytes", index)) return;
  if (length > kSetBytesLimit)
    bufferOf(MSLSIM_SELF).misused("setBytes", std::to_string(length) + " bytes at index " + std::to_string(index) +
                                                  ", more than the 4 KiB Metal allows (use a buffer)");
  // A small allocation of its own, copied now (the caller's memory may be gone when it runs).
  RecordedDispatch::BufferBinding b;
  b.bytes = std::make_shared<mslsim::DeviceBytes>(static_cast<const uint8_t*>(bytes),
                                                  static_cast<const uint8_t*>(bytes) + length);
  if (length == 0) b.bytes->reserve(16);  // an address of its own all the same (nothing may be read)
  MSLSIM_SELF->buffers[unsigned(index)] = std::move(b);
}
void ComputeCommandEncoder::setBytes(const void* bytes, NS::UInteger length, NS::UInteger, NS::UInteger index) {
  setBytes(bytes, length, index);
}

void ComputeCommandEncoder::setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index) {
  if (!validIndex(MSLSIM_SELF, "setThreadgroupMemoryLength", index)) return;
  MSLSIM_SELF->threadgroupMemory[unsigned(index)] = length;
}

void ComputeCommandEncoder::dispatchThreads(Size grid, Size threadgroup) {
  MSLSIM_SELF->record(mslsim::DispatchMode::Threads, grid, threadgroup);
}
void ComputeCommandEncoder::dispatchThreadgroups(Size groups, Size threadgroup) {
  MSLSIM_SELF->record(mslsim::DispatchMode::Threadgroups, groups, threadgroup);
}
void ComputeCommandEncoder::dispatchThreadgroups(const Buffer*, NS::UInteger, Size threadgroup) {
  if (mslsim::metal::RecordedDispatch* d = MSLSIM_SELF->record(mslsim::DispatchMode::Threadgroups, Size(0, 0, 0), threadgroup))
    d->problem = "indirect dispatches (dispatchThreadgroups with an indirect buffer) are not supported by mslsim";
}

void ComputeCommandEncoder::memoryBarrier(BarrierScope) {}
void ComputeCommandEncoder::memoryBarrier(const Resource* const[], NS::UInteger) {}
void ComputeCommandEncoder::waitForFence(const Fence*) {}
void ComputeCommandEncoder::updateFence(const Fence*) {}
void ComputeCommandEncoder::useResource(const Resource*, ResourceUsage) {}
void ComputeCommandEncoder::useResources(const Resource* const[], NS::UInteger, ResourceUsage) {}
void ComputeCommandEncoder::useHeap(const Heap*) {}
void ComputeCommandEncoder::useHeaps(const Heap* const[], NS::UInteger) {}
DispatchType ComputeCommandEncoder::dispatchType() const {
  return static_cast<const ComputeCommandEncoderObject*>(this)->dispatchType;
}
#undef MSLSIM_SELF

// --- Queues and their descriptors ---------------------------------------------------------------------

CommandBuffer* CommandQueue::commandBuffer() { return newCommandBuffer(this, true, 0); }
CommandBuffer* CommandQueue::commandBufferWithUnretainedReferences() { return newCommandBuffer(this, false, 0); }
CommandBuffer* CommandQueue::commandBuffer(const CommandBufferDescriptor* descriptor) {
  auto* d = static_cast<const CommandBufferDescriptorObject*>(descriptor);
  return newCommandBuffer(this, d->retainedReferences, d->errorOptions);
}
void CommandQueue::addResidencySet(const ResidencySet*) {}
void CommandQueue::addResidencySets(const ResidencySet* const[], NS::UInteger) {}
void CommandQueue::removeResidencySet(const ResidencySet*) {}
void CommandQueue::removeResidencySets(const ResidencySet* const[], NS::UInteger) {}
void CommandQueue::insertDebugCaptureBoundary() {}
Device* CommandQueue::device() const { return static_cast<const CommandQueueObject*>(this)->device; }
NS::String* CommandQueue::label() const { return static_cast<const CommandQueueObject*>(this)->label.get(); }
void CommandQueue::setLabel(const NS::String* l) { static_cast<CommandQueueObject*>(this)->label.reset(l); }

CommandQueueDescriptor* CommandQueueDescriptor::alloc() { return new CommandQueueDescriptorObject(); }
CommandQueueDescriptor* CommandQueueDescriptor::init() { return this; }
NS::UInteger CommandQueueDescriptor::maxCommandBufferCount() const {
  return static_cast<const CommandQueueDescriptorObject*>(this)->maxCommandBufferCount;
}
void CommandQueueDescriptor::setMaxCommandBufferCount(NS::UInteger n) {
  static_cast<CommandQueueDescriptorObject*>(this)->maxCommandBufferCount = n;
}

CommandBufferDescriptor* CommandBufferDescriptor::alloc() { return new CommandBufferDescriptorObject(); }
CommandBufferDescriptor* CommandBufferDescriptor::init() { return this; }
bool CommandBufferDescriptor::retainedReferences() const {
  return static_cast<const CommandBufferDescriptorObject*>(this)->retainedReferences;
}
void CommandBufferDescriptor::setRetainedReferences(bool r) {
  static_cast<CommandBufferDescriptorObject*>(this)->retainedReferences = r;
}
CommandBufferErrorOption CommandBufferDescriptor::errorOptions() const {
  return static_cast<const CommandBufferDescriptorObject*>(this)->errorOptions;
}
void CommandBufferDescriptor::setErrorOptions(CommandBufferErrorOption o) {
  static_cast<CommandBufferDescriptorObject*>(this)->errorOptions = o;
}

ComputePassDescriptor* ComputePassDescriptor::computePassDescriptor() { return mslsim::metal::autoreleased(alloc()->init()); }
ComputePassDescriptor* ComputePassDescriptor::alloc() { return new ComputePassDescriptorObject(); }
ComputePassDescriptor* ComputePassDescriptor::init() { return this; }
DispatchType ComputePassDescriptor::dispatchType() const {
  return static_cast<const ComputePassDescriptorObject*>(this)->dispatchType;
}
void ComputePassDescriptor::setDispatchType(DispatchType t) {
  static_cast<ComputePassDescriptorObject*>(this)->dispatchType = t;
}

}  // namespace MTL
