// What the metal-cpp classes hold. The public classes (Foundation.hpp, Metal.hpp) have no data,
// as in metal-cpp; each object the API hands out is one of these, deriving from its class along the
// same single chain, so a pointer to the public class and to its object are one address.
#pragma once

#include <Foundation/Foundation.hpp>
#include <Metal/Metal.hpp>

#include <mslsim/mslsim.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mslsim::metal {

// Objective-C's nil messaging: a message to a null object does nothing and answers zero, and
// metal-cpp programs rely on it (MLX asks a null buffer for its length). Methods programs may call
// on null start with MSLSIM_NIL_ANSWERS(zero). `this` goes through an empty asm so that the
// compiler cannot assume it is not null and drop the test.
inline bool isNil(const void* self) {
  auto value = reinterpret_cast<uintptr_t>(self);
  asm("" : "+r"(value));
  return value == 0;
}
#define MSLSIM_NIL_ANSWERS(...) \
  if (::mslsim::metal::isNil(this)) return __VA_ARGS__

// Objects handed out +0 go to the innermost autorelease pool of the calling thread.
template <class T>
T* autoreleased(T* object) {
  object->autorelease();
  return object;
}
template <class T>
T* retained(T* object) {
  if (object) object->retain();
  return object;
}
inline void releaseIfAny(const NS::Object* object) {
  if (object) const_cast<NS::Object*>(object)->release();
}

// A reference held by an object to another (retained on set, released on reset or destruction).
template <class T>
class Ref {
 public:
  Ref() = default;
  explicit Ref(const T* object) : object_(retained(const_cast<T*>(object))) {}
  Ref(const Ref& other) : object_(retained(other.object_)) {}
  Ref& operator=(const Ref& other) {
    Ref copy(other);
    std::swap(object_, copy.object_);
    return *this;
  }
  ~Ref() { releaseIfAny(object_); }
  void reset(const T* object = nullptr) { *this = Ref(object); }
  T* get() const { return object_; }
  T* operator->() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  T* object_ = nullptr;
};

// A function the program handed over as (context, invoke, destroy) (NS::detail::ErasedFunction):
// called with invoke, destroyed once. Empty when the program gave none.
template <class... A>
class PlainCallback {
 public:
  PlainCallback() = default;
  PlainCallback(void* context, void (*invoke)(void*, A...), void (*destroy)(void*))
      : context_(context), invoke_(invoke), destroy_(destroy) {}
  PlainCallback(PlainCallback&& o) noexcept
      : context_(std::exchange(o.context_, nullptr)), invoke_(o.invoke_), destroy_(o.destroy_) {}
  PlainCallback& operator=(PlainCallback&& o) noexcept {
    PlainCallback(std::move(o)).swap(*this);
    return *this;
  }
  ~PlainCallback() {
    if (context_ && destroy_) destroy_(context_);
  }
  explicit operator bool() const { return context_ && invoke_; }
  void operator()(A... a) const {
    if (*this) invoke_(context_, a...);
  }

 private:
  void swap(PlainCallback& o) noexcept {
    std::swap(context_, o.context_);
    std::swap(invoke_, o.invoke_);
    std::swap(destroy_, o.destroy_);
  }
  void* context_ = nullptr;
  void (*invoke_)(void*, A...) = nullptr;
  void (*destroy_)(void*) = nullptr;
};

NS::String* makeString(const std::string& text);  // +0
const std::string& textOf(const NS::String* string);  // "" for null
// An autoreleased NSError with `description` as its localizedDescription, stored in `*out` (when
// `out` is not null); returns null, for `return fail(...)`.
std::nullptr_t fail(NS::Error** out, const char* domain, NS::Integer code, const std::string& description);
NS::Error* makeError(const char* domain, NS::Integer code, const std::string& description);  // +0
inline void succeed(NS::Error** out) {
  if (out) *out = nullptr;
}

// --- Foundation ---------------------------------------------------------------------------------

struct StringObject final : NS::String {
  std::string text;
  bool equals(const NS::Object& other) const override;
  NS::UInteger hashValue() const override;
  NS::String* describe() const override;
};

struct ArrayObject final : NS::Array {
  std::vector<NS::Object*> items;  // retained
  ~ArrayObject() override;
  NS::Object* copyObject() const override;
};

struct DictionaryObject final : NS::Dictionary {
  std::vector<std::pair<NS::Object*, NS::Object*>> entries;  // (key, value), both retained
  ~DictionaryObject() override;
  NS::Object* copyObject() const override;
};

struct ErrorObject final : NS::Error {
  Ref<NS::String> domain;
  NS::Integer code = 0;
  Ref<NS::Dictionary> userInfo;
  NS::String* describe() const override;
};

struct URLObject final : NS::URL {
  std::string path;
};

struct AutoreleasePoolObject final : NS::AutoreleasePool {
  std::vector<NS::Object*> objects;
  ~AutoreleasePoolObject() override;  // releases them; pops the pool from its thread
};

// --- Metal --------------------------------------------------------------------------------------

struct DeviceObject;
DeviceObject& device(const MTL::Device* device);

struct ArchitectureObject final : MTL::Architecture {
  Ref<NS::String> name;
};

// Memory a kernel may touch: guarded (sim/GuardedMemory.h) unless the program gave its own.
struct BufferObject final : MTL::Buffer {
  MTL::Device* device = nullptr;
  uint8_t* data = nullptr;
  NS::UInteger length = 0;
  MTL::ResourceOptions options = 0;
  bool guarded = true;                                // allocated here, freed here
  PlainCallback<void*, NS::UInteger> deallocator;  // no-copy buffers
  Ref<MTL::Heap> heap;
  Ref<NS::String> label;
  ~BufferObject() override;
};

struct HeapObject final : MTL::Heap {
  MTL::Device* device = nullptr;
  NS::UInteger size = 0;
  std::atomic<NS::UInteger> used{0};
  MTL::ResourceOptions options = 0;
  MTL::HeapType type = MTL::HeapTypeAutomatic;
  Ref<NS::String> label;
};

struct HeapDescriptorObject final : MTL::HeapDescriptor {
  NS::UInteger size = 0;
  MTL::ResourceOptions options = 0;
  MTL::HeapType type = MTL::HeapTypeAutomatic;
  NS::Object* copyObject() const override { return new HeapDescriptorObject(*this); }
  HeapDescriptorObject() = default;
  HeapDescriptorObject(const HeapDescriptorObject& o) : size(o.size), options(o.options), type(o.type) {}
};

struct CompileOptionsObject final : MTL::CompileOptions {
  MTL::MathMode mathMode = MTL::MathModeFast;  // Metal's default: fast math on
  MTL::MathFloatingPointFunctions floatingPointFunctions = MTL::MathFloatingPointFunctionsFast;
  MTL::LanguageVersion languageVersion = MTL::LanguageVersion3_2;
  bool logging = false, preserveInvariance = false;
  Ref<NS::Dictionary> macros;
  MTL::LibraryType libraryType = MTL::LibraryTypeExecutable;
  Ref<NS::String> installName;
  MTL::LibraryOptimizationLevel optimizationLevel = MTL::LibraryOptimizationLevelDefault;
  NS::UInteger maxTotalThreadsPerThreadgroup = 0;
  CompileOptionsObject() = default;
  CompileOptionsObject(const CompileOptionsObject& o);
  NS::Object* copyObject() const override { return new CompileOptionsObject(*this); }
};

// Function constant values by index (or by name until a pipeline resolves the name), as the
// doubles mslsim::BuildOptions carries.
struct FunctionConstantValuesObject final : MTL::FunctionConstantValues {
  std::map<unsigned, double> byIndex;
  std::map<unsigned, MTL::DataType> typeByIndex;  // the type each value was given as
  std::map<std::string, double> byName;
  FunctionConstantValuesObject() = default;
  FunctionConstantValuesObject(const FunctionConstantValuesObject& o)
      : byIndex(o.byIndex), typeByIndex(o.typeByIndex), byName(o.byName) {}
  NS::Object* copyObject() const override { return new FunctionConstantValuesObject(*this); }
};

struct FunctionDescriptorObject final : MTL::FunctionDescriptor {
  Ref<NS::String> name, specializedName;
  Ref<MTL::FunctionConstantValues> constants;
  MTL::FunctionOptions options = 0;
  FunctionDescriptorObject() = default;
  FunctionDescriptorObject(const FunctionDescriptorObject& o);
  NS::Object* copyObject() const override { return new FunctionDescriptorObject(*this); }
};

// One translation unit of a library: a `.metal` file or a source string, parsed once (code per
// function on demand).
struct LibrarySource {
  std::string name;  // the file, or "program_source" for a string
  std::string text;
  mslsim::BuildOptions options;
  std::vector<std::string> kernels;
};

struct LibraryObject final : MTL::Library {
  MTL::Device* device = nullptr;
  std::vector<std::shared_ptr<const LibrarySource>> sources;
  Ref<NS::String> label, installName;
};

struct FunctionObject final : MTL::Function {
  Ref<MTL::Library> library;
  std::shared_ptr<const LibrarySource> source;
  std::string name;
  std::map<unsigned, double> constants;
  std::map<unsigned, MTL::DataType> constantTypes;
  Ref<NS::String> label;
};

struct LinkedFunctionsObject final : MTL::LinkedFunctions {
  Ref<NS::Array> functions, privateFunctions, binaryFunctions;
};

struct ComputePipelineDescriptorObject final : MTL::ComputePipelineDescriptor {
  Ref<MTL::Function> function;
  Ref<MTL::LinkedFunctions> linkedFunctions;
  Ref<NS::String> label;
  NS::UInteger maxTotalThreadsPerThreadgroup = 0;
  bool multipleOfExecutionWidth = false;
};

struct ComputePipelineStateObject final : MTL::ComputePipelineState {
  MTL::Device* device = nullptr;
  mslsim::Kernel kernel;
  NS::UInteger maxThreads = 1024;
  Ref<NS::String> label;
};

struct FenceObject final : MTL::Fence {
  MTL::Device* device = nullptr;
  Ref<NS::String> label;
};

struct SharedEventObject final : MTL::SharedEvent {
  MTL::Device* device = nullptr;
  mutable std::mutex mutex;
  std::condition_variable changed;
  uint64_t value = 0;
  Ref<NS::String> label;
  void waitFor(uint64_t target);
};

struct SharedEventHandleObject final : MTL::SharedEventHandle {
  Ref<MTL::SharedEvent> event;
};
struct SharedEventListenerObject final : MTL::SharedEventListener {};

struct ResidencySetDescriptorObject final : MTL::ResidencySetDescriptor {
  Ref<NS::String> label;
  NS::UInteger initialCapacity = 0;
  ResidencySetDescriptorObject() = default;
  ResidencySetDescriptorObject(const ResidencySetDescriptorObject& o)
      : label(o.label), initialCapacity(o.initialCapacity) {}
  NS::Object* copyObject() const override { return new ResidencySetDescriptorObject(*this); }
};

struct ResidencySetObject final : MTL::ResidencySet {
  MTL::Device* device = nullptr;
  Ref<NS::String> label;
  std::vector<const MTL::Allocation*> allocations;  // not retained, as Metal's are not
};

struct CaptureDescriptorObject final : MTL::CaptureDescriptor {
  Ref<NS::Object> object;
  MTL::CaptureDestination destination = MTL::CaptureDestinationDeveloperTools;
  Ref<NS::URL> url;
};
struct CaptureManagerObject final : MTL::CaptureManager {};

struct CommandQueueDescriptorObject final : MTL::CommandQueueDescriptor {
  NS::UInteger maxCommandBufferCount = 64;
  CommandQueueDescriptorObject() = default;
  CommandQueueDescriptorObject(const CommandQueueDescriptorObject& o) : maxCommandBufferCount(o.maxCommandBufferCount) {}
  NS::Object* copyObject() const override { return new CommandQueueDescriptorObject(*this); }
};
struct CommandBufferDescriptorObject final : MTL::CommandBufferDescriptor {
  bool retainedReferences = true;
  MTL::CommandBufferErrorOption errorOptions = 0;
  CommandBufferDescriptorObject() = default;
  CommandBufferDescriptorObject(const CommandBufferDescriptorObject& o)
      : retainedReferences(o.retainedReferences), errorOptions(o.errorOptions) {}
  NS::Object* copyObject() const override { return new CommandBufferDescriptorObject(*this); }
};
struct ComputePassDescriptorObject final : MTL::ComputePassDescriptor {
  MTL::DispatchType dispatchType = MTL::DispatchTypeSerial;
};

// One recorded dispatch: the pipeline and every argument as it was when dispatch*() was called.
struct RecordedDispatch {
  Ref<MTL::ComputePipelineState> pipeline;
  struct BufferBinding {
    Ref<MTL::Buffer> buffer;  // null: bytes set with setBytes
    NS::UInteger offset = 0;
    std::shared_ptr<mslsim::DeviceBytes> bytes;
  };
  std::map<unsigned, BufferBinding> buffers;
  std::map<unsigned, NS::UInteger> threadgroupMemory;
  mslsim::DispatchMode mode = mslsim::DispatchMode::Threads;
  mslsim::Size3 grid{1, 1, 1}, threadgroup{1, 1, 1};
  std::string problem;  // an encoding mistake found when it was recorded (reported when it runs)
};

struct EventCommand {
  Ref<MTL::Event> event;
  uint64_t value = 0;
  bool signal = false;  // else wait
};

struct Command {
  std::unique_ptr<RecordedDispatch> dispatch;
  std::unique_ptr<EventCommand> event;
};

struct CommandQueueObject;

struct CommandBufferObject final : MTL::CommandBuffer {
  Ref<MTL::CommandQueue> queue;
  bool retainedReferences = true;
  MTL::CommandBufferErrorOption errorOptions = 0;
  Ref<NS::String> label;

  mutable std::mutex mutex;
  std::condition_variable changed;
  MTL::CommandBufferStatus status = MTL::CommandBufferStatusNotEnqueued;
  bool finished = false;  // completed handlers have run: waitUntilCompleted returns
  Ref<NS::Error> error;
  std::vector<Command> commands;
  std::vector<PlainCallback<MTL::CommandBuffer*>> scheduledHandlers, completedHandlers;
  double startTime = 0, endTime = 0;
  MTL::CommandEncoder* openEncoder = nullptr;  // not retained: the encoder retains this buffer
  // API misuse Metal's validation layer stops at (docs/metal-api.md, "API validation"): said on
  // stderr at the call, and the command buffer fails with the first of them when it runs.
  std::string misuse;
  void misused(const std::string& call, const std::string& what);

  void setStatus(MTL::CommandBufferStatus s);
  void run();  // on the queue's thread
};

struct ComputeCommandEncoderObject final : MTL::ComputeCommandEncoder {
  Ref<MTL::CommandBuffer> commandBuffer;
  MTL::DispatchType dispatchType = MTL::DispatchTypeSerial;
  Ref<NS::String> label;
  bool ended = false;
  // The state the next dispatch captures.
  Ref<MTL::ComputePipelineState> pipeline;
  std::map<unsigned, RecordedDispatch::BufferBinding> buffers;
  std::map<unsigned, NS::UInteger> threadgroupMemory;
  // The dispatch as recorded, or null when its command buffer was already committed (a misuse).
  RecordedDispatch* record(mslsim::DispatchMode mode, MTL::Size grid, MTL::Size threadgroup);
};

// Runs committed command buffers in commit order on a thread of its own. The thread works on
// `Work` alone, so that a queue released from its own thread (by a completion handler dropping
// the last reference) leaves it nothing dangling.
struct CommandQueueObject final : MTL::CommandQueue {
  struct Work {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<CommandBufferObject*> pending;  // retained
    bool stopping = false;
  };
  MTL::Device* device = nullptr;
  Ref<NS::String> label;
  std::shared_ptr<Work> work = std::make_shared<Work>();
  std::thread thread;
  void submit(CommandBufferObject* buffer);
  ~CommandQueueObject() override;  // what was committed still runs; the thread ends after it
};

// How often a kind of work was done and how long it took, summed over threads.
struct WorkCounter {
  std::atomic<uint64_t> count{0}, micros{0};
};
// Counts one piece of work and its time from construction to destruction.
class TimedWork {
 public:
  explicit TimedWork(WorkCounter& counter) : counter_(counter), start_(std::chrono::steady_clock::now()) {}
  ~TimedWork() {
    counter_.count += 1;
    counter_.micros += uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - start_).count());
  }
  TimedWork(const TimedWork&) = delete;
  TimedWork& operator=(const TimedWork&) = delete;

 private:
  WorkCounter& counter_;
  std::chrono::steady_clock::time_point start_;
};

// A report file the environment names that cannot be written: said once per variable on
// stderr (the program's own output stays as it is; the dispatch's outcome does not change).
void warnUnwritable(const char* variable, const std::string& path);

// Where a program's time on the simulated GPU went: making libraries (parsing the source, or
// taking its function list from the compile cache), making pipeline states (generating a
// function's code, or loading it from the cache), and running dispatches; and which code tier the
// dispatches ran in (their run time only; a dispatch that first made its optimised code counts the
// making in `dispatches`).
struct DeviceStatistics {
  WorkCounter libraries, pipelines, dispatches;
  WorkCounter quickDispatches, optimisedDispatches;
  void countTier(const std::string& tier, double milliseconds) {
    WorkCounter& c = tier == "quick" ? quickDispatches : optimisedDispatches;
    c.count += 1;
    c.micros += uint64_t(milliseconds * 1000);
  }
};

// The one simulated GPU.
struct DeviceObject final : MTL::Device {
  Ref<NS::String> name;
  Ref<MTL::Architecture> architecture;
  mslsim::CheckSet checks;
  mslsim::DispatchOptions dispatchOptions;  // checks, timeout
  std::string reportJsonPath;              // MSLSIM_METAL_REPORT_JSON: findings appended, one JSON per line
  std::string reportSarifPath;             // MSLSIM_METAL_REPORT_SARIF: one SARIF log of every failing dispatch
  std::vector<mslsim::KernelFindings> sarifFindings;  // what it holds so far (under reportMutex)
  std::string statsPath;                   // MSLSIM_METAL_STATS: the statistics, one JSON line at exit
  std::string recordPath;                  // MSLSIM_METAL_RECORD: the pipelines made, for bench/pipeline_latency
  mslsim::TierPolicy tiers = mslsim::TierPolicy::Adaptive;  // MSLSIM_METAL_TIER
  std::string suppressionsPath;            // MSLSIM_METAL_SUPPRESSIONS (in dispatchOptions once read)
  bool reportFindings = false;             // MSLSIM_METAL_FINDINGS=report: print them, fail nothing
  DeviceStatistics stats;
  std::mutex execution;                    // one dispatch at a time
  std::mutex reportMutex;
  std::atomic<NS::UInteger> allocated{0};
  // Runs one dispatch; the findings' text when it must fail its command buffer, else "" (findings
  // in report mode are printed on stderr and kept in the reports).
  std::string execute(const RecordedDispatch& dispatch);
};

}  // namespace mslsim::metal
