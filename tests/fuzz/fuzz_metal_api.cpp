// The Metal API (metal-cpp over mslsim::metal) driven by a byte string: each input is decoded into
// a sequence of API calls with arbitrary arguments (buffers of any length and options, bindings at
// any index and offset, setBytes of any size, threadgroup memory, dispatches of any shape,
// encoders and command buffers in any state: ended twice, committed twice, waited on before
// commit, released while open; function constants of any type and value; pipelines with limits;
// heaps, events and residency sets). What the API must do with a misuse is refuse it (nil, an
// NSError, a command buffer error, an encoder-time error): a crash, a sanitizer report, an
// exception escaping the API, a hang or a leak is a finding.
//
// Dispatches are kept small (grids of at most 2,048 threads or 64 threadgroups) so that an input
// runs in milliseconds; the sizes Metal's validation refuses (threadgroups over 1024 threads or
// over the pipeline's limit) are still reachable. Events only rise and command buffers wait only
// for values already reached: a wait for a value nobody signals hangs on Metal too. The kernels are one fixed library, compiled once per process (the compile
// cache makes its pipelines cheap after the first input), so the fuzzer explores the API rather
// than the front end (fuzz_msl_frontend does that).
#include <fuzzer/FuzzedDataProvider.h>

#include <Foundation/Foundation.hpp>
#include <Metal/Metal.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "FuzzSupport.h"

namespace {

const char* kSource = R"(
#include <metal_stdlib>
using namespace metal;
constant bool use_bias [[function_constant(0)]];
constant int shift [[function_constant(1)]];
kernel void add(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
                device float* c [[buffer(2)]], constant uint& n [[buffer(3)]],
                uint i [[thread_position_in_grid]]) {
  if (i < n) c[i] = a[i] + b[i];
}
kernel void reduce(device const float* a [[buffer(0)]], device float* out [[buffer(1)]],
                   threadgroup float* scratch [[threadgroup(0)]], uint i [[thread_position_in_grid]],
                   uint l [[thread_position_in_threadgroup]], uint n [[threads_per_threadgroup]],
                   uint g [[threadgroup_position_in_grid]]) {
  scratch[l] = a[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = n / 2; s > 0; s /= 2) {
    if (l < s) scratch[l] += scratch[l + s];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (l == 0) out[g] = scratch[0];
}
kernel void shifted(device int* data [[buffer(0)]],
                    device const int* bias [[buffer(1), function_constant(use_bias)]],
                    uint i [[thread_position_in_grid]]) {
  int v = data[i] << shift;
  if (use_bias) v += bias[i];
  data[i] = v;
}
[[max_total_threads_per_threadgroup(64)]]
kernel void lanes(device float* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = simd_sum(x[i]);
}
kernel void count(device atomic_uint* counter [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
}
)";
const char* kFunctions[] = {"add", "reduce", "shifted", "lanes", "count", "missing"};

// What the inputs reached, printed at exit when $FUZZ_METAL_API_STATS is set: whether the fuzzer
// gets past the refusals to pipelines and completed command buffers.
struct Reached {
  size_t pipelines = 0, completed = 0, failed = 0;
  ~Reached() {
    if (std::getenv("FUZZ_METAL_API_STATS"))
      std::fprintf(stderr, "fuzz_metal_api: %zu pipelines made, %zu command buffers completed, %zu failed\n",
                   pipelines, completed, failed);
  }
} reached;

struct Session {
  MTL::Device* device;
  MTL::CommandQueue* queue;
  MTL::Library* library;
};

const Session& session() {
  static const Session s = [] {
    Session s{};
    s.device = MTL::CreateSystemDefaultDevice();
    if (!s.device) std::abort();
    s.queue = s.device->newCommandQueue();
    NS::Error* error = nullptr;
    s.library = s.device->newLibrary(NS::String::string(kSource, NS::UTF8StringEncoding), nullptr, &error);
    if (!s.library) std::abort();  // the fixed source compiles
    return s;
  }();
  return s;
}

// Everything one input made, released at its end (as a program that cleans up would).
struct Objects {
  std::vector<MTL::Buffer*> buffers;
  std::vector<MTL::ComputePipelineState*> pipelines;
  std::vector<MTL::CommandBuffer*> commandBuffers;  // retained here
  std::vector<MTL::Heap*> heaps;
  std::vector<MTL::SharedEvent*> events;
  std::set<MTL::SharedEvent*> signalledByCommandBuffers;
  MTL::ComputeCommandEncoder* encoder = nullptr;  // of commandBuffers.back(), +0
  ~Objects() {
    // A command buffer released while it runs is kept alive by its queue; wait for the committed
    // ones so that the next input starts clean.
    for (MTL::CommandBuffer* cb : commandBuffers) {
      if (cb->status() == MTL::CommandBufferStatusCommitted || cb->status() == MTL::CommandBufferStatusScheduled)
        cb->waitUntilCompleted();
      if (cb->status() == MTL::CommandBufferStatusCompleted) ++reached.completed;
      if (cb->status() == MTL::CommandBufferStatusError) ++reached.failed;
      cb->release();
    }
    for (auto* p : pipelines)
      if (p) p->release();
    for (auto* b : buffers)
      if (b) b->release();
    for (auto* h : heaps) h->release();
    for (auto* e : events) e->release();
  }
};

template <class T> T* pick(FuzzedDataProvider& in, const std::vector<T*>& v) {
  if (v.empty() || in.ConsumeBool()) return nullptr;
  return v[in.ConsumeIntegralInRange<size_t>(0, v.size() - 1)];
}

// Sizes: mostly small, sometimes anything (offsets and lengths past every limit).
NS::UInteger size(FuzzedDataProvider& in, NS::UInteger small) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return in.ConsumeIntegral<uint64_t>();
    case 1: return NS::UInteger(1) << in.ConsumeIntegralInRange<int>(0, 63);
    default: return in.ConsumeIntegralInRange<NS::UInteger>(0, small);
  }
}

MTL::Size threads(FuzzedDataProvider& in, NS::UInteger limit) {
  NS::UInteger x = in.ConsumeIntegralInRange<NS::UInteger>(0, limit);
  NS::UInteger y = in.ConsumeIntegralInRange<NS::UInteger>(0, 4);
  NS::UInteger z = in.ConsumeIntegralInRange<NS::UInteger>(0, 2);
  return MTL::Size(x, y, z);
}

MTL::ComputePipelineState* makePipeline(FuzzedDataProvider& in, const Session& s) {
  auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  int constants = in.ConsumeIntegralInRange<int>(0, 3);
  for (int k = 0; k < constants; ++k) {
    static const MTL::DataType kTypes[] = {MTL::DataTypeBool, MTL::DataTypeInt, MTL::DataTypeFloat,
                                           MTL::DataTypeShort, MTL::DataTypeUChar, MTL::DataTypeHalf,
                                           MTL::DataTypeFloat4, MTL::DataTypeULong, MTL::DataTypeNone};
    MTL::DataType type = kTypes[in.ConsumeIntegralInRange<size_t>(0, std::size(kTypes) - 1)];
    uint8_t value[16] = {};
    std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(sizeof value);
    if (!bytes.empty()) std::memcpy(value, bytes.data(), bytes.size());
    if (in.ConsumeBool())
      values->setConstantValue(value, type, in.ConsumeIntegralInRange<NS::UInteger>(0, 70000));
    else
      values->setConstantValue(value, type, NS::String::string(in.ConsumeBool() ? "shift" : "use_bias", NS::UTF8StringEncoding));
  }
  const char* name = kFunctions[in.ConsumeIntegralInRange<size_t>(0, std::size(kFunctions) - 1)];
  NS::Error* error = nullptr;
  MTL::Function* function = in.ConsumeBool()
                                ? s.library->newFunction(NS::String::string(name, NS::UTF8StringEncoding))
                                : s.library->newFunction(NS::String::string(name, NS::UTF8StringEncoding), values.get(), &error);
  MTL::ComputePipelineState* state = s.device->newComputePipelineState(function, &error);  // null function too
  if (function) function->release();
  if (state) ++reached.pipelines;
  return state;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size_) {
  const Session& s = session();
  FuzzedDataProvider in(data, size_);
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  {
    Objects o;
    for (int step = 0; step < 64 && in.remaining_bytes() > 0; ++step) {
      MTL::CommandBuffer* cb = o.commandBuffers.empty() ? nullptr : o.commandBuffers.back();
      switch (in.ConsumeIntegralInRange<int>(0, 21)) {
        case 0: {  // a buffer of any length and options (nil when too large)
          MTL::ResourceOptions options = in.ConsumeIntegral<uint32_t>() & 0x3ff;
          o.buffers.push_back(s.device->newBuffer(size(in, 4096), options));
          break;
        }
        case 1: {  // a buffer copied from bytes of the input
          std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 4096));
          o.buffers.push_back(s.device->newBuffer(bytes.data(), bytes.size(), MTL::ResourceStorageModeShared));
          break;
        }
        case 2: {  // the CPU writes a buffer, inside its length, and says so
          MTL::Buffer* b = pick(in, o.buffers);
          if (!b || !b->length()) break;
          NS::UInteger at = in.ConsumeIntegralInRange<NS::UInteger>(0, b->length() - 1);
          std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(b->length() - at);
          if (!bytes.empty()) std::memcpy(static_cast<uint8_t*>(b->contents()) + at, bytes.data(), bytes.size());
          b->didModifyRange(NS::Range(size(in, b->length()), size(in, b->length())));
          break;
        }
        case 3:  // a command buffer (two at a time are allowed)
          if (MTL::CommandBuffer* c = in.ConsumeBool() ? s.queue->commandBuffer() : s.queue->commandBufferWithUnretainedReferences())
            o.commandBuffers.push_back(c->retain());
          break;
        case 4:  // an encoder, also on a buffer that has one open, is committed or completed
          if (cb) o.encoder = cb->computeCommandEncoder();
          break;
        case 5:
          if (o.encoder) o.encoder->setComputePipelineState(pick(in, o.pipelines));
          break;
        case 6:
          if (o.encoder) o.encoder->setBuffer(pick(in, o.buffers), size(in, 256), size(in, 40));
          break;
        case 7: {
          if (!o.encoder) break;
          std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 5000));
          o.encoder->setBytes(bytes.data(), bytes.size(), size(in, 40));
          break;
        }
        case 8:
          if (o.encoder) o.encoder->setThreadgroupMemoryLength(size(in, 40000), size(in, 40));
          break;
        case 9:
          if (o.encoder) o.encoder->dispatchThreads(threads(in, 256), threads(in, 1100));
          break;
        case 10:
          if (o.encoder) o.encoder->dispatchThreadgroups(threads(in, 8), threads(in, 1100));
          break;
        case 11:  // also twice, and on an encoder whose buffer moved on
          if (o.encoder) o.encoder->endEncoding();
          if (in.ConsumeBool()) o.encoder = nullptr;
          break;
        case 12:  // also twice, and with an encoder still open
          if (cb) cb->commit();
          break;
        case 13:  // also before commit (Metal's validation asserts; mslsim reports it)
          if (cb && cb->status() != MTL::CommandBufferStatusNotEnqueued) cb->waitUntilCompleted();
          break;
        case 14:
          if (cb) cb->enqueue();
          break;
        case 15:
          o.pipelines.push_back(makePipeline(in, s));
          break;
        case 16: {  // a pipeline's limits, read back
          MTL::ComputePipelineState* p = pick(in, o.pipelines);
          if (p) (void)(p->maxTotalThreadsPerThreadgroup() + p->threadExecutionWidth() + p->staticThreadgroupMemoryLength());
          break;
        }
        case 17: {  // a heap, and buffers from it until it is full
          auto desc = NS::TransferPtr(MTL::HeapDescriptor::alloc()->init());
          desc->setSize(size(in, 1 << 16));
          if (MTL::Heap* h = s.device->newHeap(desc.get())) {
            o.heaps.push_back(h);
            for (int k = in.ConsumeIntegralInRange<int>(0, 4); k > 0; --k)
              o.buffers.push_back(h->newBuffer(size(in, 1 << 14), MTL::ResourceStorageModeShared));
          }
          break;
        }
        case 18: {  // an event signalled by a command buffer or the CPU, waited for by a command buffer
          if (o.events.empty() || in.ConsumeBool()) o.events.push_back(s.device->newSharedEvent());
          MTL::SharedEvent* e = o.events.back();
          uint64_t reached = e->signaledValue();
          switch (in.ConsumeIntegralInRange<int>(0, 2)) {
            case 0:
              if (cb) cb->encodeSignalEvent(e, reached + 1 + in.ConsumeIntegralInRange<uint64_t>(0, 3));
              if (cb) o.signalledByCommandBuffers.insert(e);  // may go down as they run: not waited for
              break;
            case 1:
              if (cb && !o.signalledByCommandBuffers.count(e)) cb->encodeWait(e, in.ConsumeIntegralInRange<uint64_t>(0, reached));
              break;
            case 2: e->setSignaledValue(reached + in.ConsumeIntegralInRange<uint64_t>(0, 3)); break;
          }
          break;
        }
        case 19: {  // a buffer released while a dispatch may still use it (its command buffer holds it)
          if (o.buffers.empty()) break;
          size_t k = in.ConsumeIntegralInRange<size_t>(0, o.buffers.size() - 1);
          if (o.buffers[k]) o.buffers[k]->release();
          o.buffers[k] = nullptr;
          break;
        }
        case 20:  // offsets changed after binding
          if (o.encoder) o.encoder->setBufferOffset(size(in, 256), size(in, 40));
          break;
        case 21: {  // status and error of every command buffer, as a program polls them
          for (MTL::CommandBuffer* c : o.commandBuffers)
            if (NS::Error* e = c->error()) (void)std::strlen(e->localizedDescription()->utf8String());
          break;
        }
      }
    }
  }
  pool->release();
  return 0;
}
