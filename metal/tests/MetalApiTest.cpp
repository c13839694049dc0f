// Host programs written as metal-cpp programs are on macOS, run on mslsim. Every result is checked
// against a C++ reference loop; every error against what Metal documents (a null object and an
// NS::Error, a command buffer in CommandBufferStatusError).
#define NS_PRIVATE_IMPLEMENTATION
#define MTL_PRIVATE_IMPLEMENTATION
#define CA_PRIVATE_IMPLEMENTATION
#include <Metal/Metal.hpp>
#include <QuartzCore/QuartzCore.hpp>

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

NS::String* str(const char* s) { return NS::String::string(s, NS::UTF8StringEncoding); }

// What every test starts from: a device, a queue, and a scoped autorelease pool.
class MetalApi : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
    ASSERT_TRUE(device_);
    queue_ = NS::TransferPtr(device_->newCommandQueue());
  }

  NS::SharedPtr<MTL::ComputePipelineState> pipeline(const char* source, const char* function,
                                                    const MTL::FunctionConstantValues* constants = nullptr) {
    NS::Error* error = nullptr;
    auto library = NS::TransferPtr(device_->newLibrary(str(source), nullptr, &error));
    EXPECT_TRUE(library) << (error ? error->localizedDescription()->utf8String() : "");
    if (!library) return nullptr;
    auto fn = constants ? NS::TransferPtr(library->newFunction(str(function), constants, &error))
                        : NS::TransferPtr(library->newFunction(str(function)));
    EXPECT_TRUE(fn) << function;
    if (!fn) return nullptr;
    auto state = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    EXPECT_TRUE(state) << (error ? error->localizedDescription()->utf8String() : "");
    return state;
  }

  NS::SharedPtr<MTL::Buffer> floats(const std::vector<float>& values) {
    return NS::TransferPtr(device_->newBuffer(values.data(), values.size() * sizeof(float),
                                              MTL::ResourceStorageModeShared));
  }

  // Encodes kScale's `scale` (data[i] *= factor) over `n` threads into its own encoder of `cb`.
  static void encodeScale(MTL::CommandBuffer* cb, MTL::ComputePipelineState* state, MTL::Buffer* data, float factor,
                          NS::UInteger n = 64, NS::UInteger group = 64) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(state);
    enc->setBuffer(data, 0, 0);
    enc->setBytes(&factor, sizeof factor, 1);
    enc->dispatchThreads(MTL::Size(n, 1, 1), MTL::Size(group, 1, 1));
    enc->endEncoding();
  }

  static std::vector<float> read(MTL::Buffer* buffer) {
    const float* p = static_cast<const float*>(buffer->contents());
    return std::vector<float>(p, p + buffer->length() / sizeof(float));
  }

  NS::SharedPtr<NS::AutoreleasePool> pool_ = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
};

const char* kAdd = R"(
#include <metal_stdlib>
using namespace metal;
kernel void add(device const float* a [[buffer(0)]], device const float* b [[buffer(1)]],
                device float* out [[buffer(2)]], constant uint& n [[buffer(3)]],
                uint i [[thread_position_in_grid]]) {
  if (i < n) out[i] = a[i] + b[i];
}
)";

TEST_F(MetalApi, VectorAddMatchesTheReferenceLoop) {
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n), expected(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = 1000.0f - i;
    expected[i] = a[i] + b[i];
  }
  auto state = pipeline(kAdd, "add");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->maxTotalThreadsPerThreadgroup(), 1024u);
  EXPECT_EQ(state->threadExecutionWidth(), 32u);
  auto bufA = floats(a), bufB = floats(b);
  auto out = NS::TransferPtr(device_->newBuffer(n * sizeof(float), MTL::ResourceStorageModeShared));

  MTL::CommandBuffer* cb = queue_->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(state.get());
  enc->setBuffer(bufA.get(), 0, 0);
  enc->setBuffer(bufB.get(), 0, 1);
  enc->setBuffer(out.get(), 0, 2);
  enc->setBytes(&n, sizeof n, 3);
  enc->setBytes(&n, sizeof n, 7);  // an index the kernel does not declare: ignored, as by Metal
  enc->dispatchThreads(MTL::Size(n, 1, 1), MTL::Size(64, 1, 1));  // the last threadgroup is partial
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  EXPECT_EQ(cb->error(), nullptr);
  EXPECT_EQ(read(out.get()), expected);
}

TEST_F(MetalApi, BuffersBoundAtOffsetsAndNoCopyMemory) {
  // One allocation holding both inputs, bound twice at different offsets, and an output in the
  // program's own page-aligned memory (newBuffer with no copy).
  const uint32_t n = 256;
  std::vector<float> packed(2 * n);
  for (uint32_t i = 0; i < 2 * n; ++i) packed[i] = float(i % 17) - 3.0f;
  auto both = floats(packed);
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  std::atomic<bool> deallocated{false};
  {
    auto out = NS::TransferPtr(device_->newBuffer(memory, page, MTL::ResourceStorageModeShared,
                                                  [&](void* p, NS::UInteger length) {
                                                    deallocated = true;
                                                    munmap(p, length);
                                                  }));
    EXPECT_EQ(out->contents(), memory);
    auto state = pipeline(kAdd, "add");
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(state.get());
    enc->setBuffer(both.get(), 0, 0);
    enc->setBuffer(both.get(), n * sizeof(float), 1);
    enc->setBuffer(out.get(), 0, 2);
    enc->setBytes(&n, sizeof n, 3);
    enc->dispatchThreadgroups(MTL::Size(n / 32, 1, 1), MTL::Size(32, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted)
        << cb->error()->localizedDescription()->utf8String();
    const float* result = static_cast<const float*>(memory);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], packed[i] + packed[n + i]) << i;
    EXPECT_FALSE(deallocated);
  }
  // When the buffer's last reference went: the program's, or the command buffer's, which lets go
  // of what it held on its queue's thread once its waiters have gone.
  for (int i = 0; i < 1000 && !deallocated; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(deallocated);
}

TEST_F(MetalApi, AnEmptyBufferBindsToAPointerTheKernelDoesNotRead) {
  // MLX binds the shape of a 0-d array as an empty setBytes; the kernel reads it only for ndim > 0.
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
kernel void scaled_copy(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],
                        constant const int* shape [[buffer(2)]], constant const int& ndim [[buffer(3)]],
                        uint i [[thread_position_in_grid]]) {
  out[i] = ndim > 0 ? in[i] * shape[0] : in[i];
}
)";
  auto state = pipeline(source, "scaled_copy");
  ASSERT_TRUE(state);
  auto in = floats({1.5f, -2.0f, 4.0f, 8.0f});
  auto out = NS::TransferPtr(device_->newBuffer(4 * sizeof(float), MTL::ResourceStorageModeShared));
  int ndim = 0;
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(state.get());
  enc->setBuffer(in.get(), 0, 0);
  enc->setBuffer(out.get(), 0, 1);
  enc->setBytes(nullptr, 0, 2);
  enc->setBytes(&ndim, sizeof ndim, 3);
  enc->dispatchThreads(MTL::Size(4, 1, 1), MTL::Size(4, 1, 1));
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << cb->error()->localizedDescription()->utf8String();
  EXPECT_EQ(read(out.get()), (std::vector<float>{1.5f, -2.0f, 4.0f, 8.0f}));
}

const char* kReduce = R"(
#include <metal_stdlib>
using namespace metal;
kernel void group_sums(device const float* in [[buffer(0)]], device float* sums [[buffer(1)]],
                       threadgroup float* scratch [[threadgroup(0)]],
                       uint i [[thread_position_in_grid]], uint t [[thread_position_in_threadgroup]],
                       uint g [[threadgroup_position_in_grid]], uint size [[threads_per_threadgroup]]) {
  scratch[t] = in[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = size / 2; stride > 0; stride /= 2) {
    if (t < stride) scratch[t] += scratch[t + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (t == 0) sums[g] = scratch[0];
}
)";

TEST_F(MetalApi, ThreadgroupMemoryReduction) {
  const uint32_t groups = 24, size = 128;
  std::vector<float> in(groups * size);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float((i * 7) % 11);
  std::vector<float> expected(groups, 0.0f);
  for (size_t i = 0; i < in.size(); ++i) expected[i / size] += in[i];
  auto state = pipeline(kReduce, "group_sums");
  ASSERT_TRUE(state);
  auto input = floats(in);
  auto sums = NS::TransferPtr(device_->newBuffer(groups * sizeof(float), MTL::ResourceStorageModeShared));
  MTL::CommandBuffer* cb = queue_->commandBufferWithUnretainedReferences();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
  enc->setComputePipelineState(state.get());
  enc->setBuffer(input.get(), 0, 0);
  enc->setBuffer(sums.get(), 0, 1);
  enc->setThreadgroupMemoryLength(size * sizeof(float), 0);
  enc->dispatchThreadgroups(MTL::Size(groups, 1, 1), MTL::Size(size, 1, 1));
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << cb->error()->localizedDescription()->utf8String();
  EXPECT_EQ(read(sums.get()), expected);
}

const char* kScale = R"(
#include <metal_stdlib>
using namespace metal;
kernel void scale(device float* data [[buffer(0)]], constant float& factor [[buffer(1)]],
                  uint i [[thread_position_in_grid]]) {
  data[i] *= factor;
}
)";

// What a command buffer holds (its completion handlers' captures, the buffers its dispatches use)
// is let go after waitUntilCompleted returns: letting it go may take a lock the waiting thread
// holds. MLX's Python arrays do, taking the GIL a Python thread keeps while it waits.
TEST_F(MetalApi, WhatACommandBufferHoldsIsReleasedAfterItsWaitersGo) {
  // On the heap: the releaser thread may still be inside the destructors below when they have
  // said they are done.
  struct Interpreter {
    std::mutex lock;  // stands for the GIL
    std::atomic<int> released{0};
  };
  auto interpreter = std::make_shared<Interpreter>();
  struct TakesTheLock {
    std::shared_ptr<Interpreter> interpreter;
    explicit TakesTheLock(std::shared_ptr<Interpreter> i) : interpreter(std::move(i)) {}
    ~TakesTheLock() {
      { std::lock_guard<std::mutex> hold(interpreter->lock); }
      ++interpreter->released;
    }
  };
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  auto state = pipeline(kScale, "scale");
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  {
    auto data = NS::TransferPtr(device_->newBuffer(memory, page, MTL::ResourceStorageModeShared,
                                                   [interpreter](void* p, NS::UInteger length) {
                                                     { std::lock_guard<std::mutex> hold(interpreter->lock); }
                                                     munmap(p, length);
                                                     ++interpreter->released;
                                                   }));
    encodeScale(cb, state.get(), data.get(), 2.0f);
    auto captured = std::make_shared<TakesTheLock>(interpreter);
    cb->addCompletedHandler([captured](MTL::CommandBuffer*) {});
  }  // the command buffer now holds the last references to both
  {
    std::lock_guard<std::mutex> hold(interpreter->lock);
    cb->commit();
    cb->waitUntilCompleted();  // hangs if the buffer lets go of them before its waiters go
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  }
  for (int i = 0; i < 1000 && interpreter->released < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(interpreter->released, 2) << "the buffer's memory and the handler's captures are both let go";
}

// The same, for a wait on a later command buffer of the queue: what the first one held must not
// be let go on the queue's thread, where it would hold up the second (MLX's test_zero_copy hung:
// the first buffer's handler released a Python array, which wanted the GIL the waiting thread kept).
TEST_F(MetalApi, WhatACommandBufferHoldsDoesNotHoldUpTheNextOne) {
  // What the captures' destructor uses lives on the heap with them: it runs on the queue's
  // releaser thread, which may come to it after this test has returned.
  struct Interpreter {
    std::timed_mutex lock;  // stands for the GIL
    std::atomic<bool> gaveUp{false};
    std::atomic<bool> released{false};
  };
  auto interpreter = std::make_shared<Interpreter>();
  struct TakesTheLock {
    std::shared_ptr<Interpreter> interpreter;
    explicit TakesTheLock(std::shared_ptr<Interpreter> i) : interpreter(std::move(i)) {}
    ~TakesTheLock() {
      // Gives up after 20 s, so that the bug fails the test instead of hanging it.
      if (interpreter->lock.try_lock_for(std::chrono::seconds(20)))
        interpreter->lock.unlock();
      else
        interpreter->gaveUp = true;
      interpreter->released = true;
    }
  };
  auto state = pipeline(kScale, "scale");
  auto data = floats(std::vector<float>(64, 1.0f));
  MTL::CommandBuffer* first = queue_->commandBuffer();
  MTL::CommandBuffer* second = queue_->commandBuffer();
  encodeScale(first, state.get(), data.get(), 2.0f);
  encodeScale(second, state.get(), data.get(), 2.0f);
  {
    auto captured = std::make_shared<TakesTheLock>(interpreter);
    first->addCompletedHandler([captured](MTL::CommandBuffer*) {});
  }  // the first buffer now holds the last reference
  {
    std::lock_guard<std::timed_mutex> hold(interpreter->lock);
    first->commit();
    second->commit();
    second->waitUntilCompleted();
    EXPECT_FALSE(interpreter->gaveUp) << "the second buffer waited for the first one's captures to be released";
    EXPECT_EQ(second->status(), MTL::CommandBufferStatusCompleted);
  }
  const float* out = static_cast<const float*>(data->contents());
  EXPECT_EQ(out[0], 4.0f);  // both ran: 1 * 2 * 2
  // The captures are let go once the lock is free; the pipeline and buffer they ran with must
  // still be alive then.
  for (int i = 0; i < 4000 && !interpreter->released; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(interpreter->released);
}

TEST_F(MetalApi, TwoQueuesOrderedByASharedEventAndACpuWait) {
  // Queue B must run after queue A's dispatch (event value 1), though B is committed first; the
  // CPU waits for B (value 2). Multiplying is not commutative with what the reference expects
  // only if the order is right: (x * 3) then (+ via scale 0.5).
  auto state = pipeline(kScale, "scale");
  ASSERT_TRUE(state);
  auto queueB = NS::TransferPtr(device_->newCommandQueue());
  auto event = NS::TransferPtr(device_->newSharedEvent());
  const uint32_t n = 64;
  std::vector<float> x(n);
  std::iota(x.begin(), x.end(), 1.0f);
  auto data = floats(x);
  auto scaleBy = [&](MTL::CommandBuffer* cb, float factor) { encodeScale(cb, state.get(), data.get(), factor, n, 32); };
  // B: wait for 1, check-and-scale by 0.5, signal 2.
  MTL::CommandBuffer* b = queueB->commandBuffer();
  b->encodeWait(event.get(), 1);
  scaleBy(b, 0.5f);
  b->encodeSignalEvent(event.get(), 2);
  b->commit();
  // The data is untouched while B waits.
  EXPECT_FALSE(event->waitUntilSignaledValue(2, 50));
  EXPECT_EQ(read(data.get()), x);
  // A: scale by 3, signal 1.
  MTL::CommandBuffer* a = queue_->commandBuffer();
  scaleBy(a, 3.0f);
  a->encodeSignalEvent(event.get(), 1);
  a->commit();
  EXPECT_TRUE(event->waitUntilSignaledValue(2, UINT64_MAX));
  b->waitUntilCompleted();
  EXPECT_EQ(event->signaledValue(), 2u);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(read(data.get())[i], x[i] * 3.0f * 0.5f);
  // The CPU signals too: a buffer waiting for 5 runs once the CPU sets it.
  MTL::CommandBuffer* c = queueB->commandBuffer();
  c->encodeWait(event.get(), 5);
  scaleBy(c, 2.0f);
  c->commit();
  event->setSignaledValue(5);
  c->waitUntilCompleted();
  EXPECT_EQ(c->status(), MTL::CommandBufferStatusCompleted);
  EXPECT_EQ(read(data.get())[3], x[3] * 3.0f);
}

const char* kConstants = R"(
#include <metal_stdlib>
using namespace metal;
constant int offset [[function_constant(0)]];
constant bool negate [[function_constant(1)]];
constant bool has_bias = is_function_constant_defined(offset);
kernel void specialised(device int* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  int v = int(i) + (has_bias ? offset : 1000);
  out[i] = negate ? -v : v;
}
)";

TEST_F(MetalApi, FunctionConstantsSpecialiseAFunction) {
  NS::Error* error = nullptr;
  auto library = NS::TransferPtr(device_->newLibrary(str(kConstants), nullptr, &error));
  ASSERT_TRUE(library);
  auto run = [&](const MTL::FunctionConstantValues* values) {
    auto descriptor = MTL::FunctionDescriptor::functionDescriptor();
    descriptor->setName(str("specialised"));
    descriptor->setConstantValues(values);
    auto fn = NS::TransferPtr(library->newFunction(descriptor, &error));
    EXPECT_TRUE(fn);
    auto state = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    EXPECT_TRUE(state) << (error ? error->localizedDescription()->utf8String() : "");
    auto out = NS::TransferPtr(device_->newBuffer(8 * sizeof(int), MTL::ResourceStorageModeShared));
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(state.get());
    enc->setBuffer(out.get(), 0, 0);
    enc->dispatchThreads(MTL::Size(8, 1, 1), MTL::Size(8, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    const int* p = static_cast<const int*>(out->contents());
    return std::vector<int>(p, p + 8);
  };
  auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  int offset = 10;
  bool negate = true;
  values->setConstantValue(&offset, MTL::DataTypeInt, NS::UInteger(0));
  values->setConstantValue(&negate, MTL::DataType::DataTypeBool, NS::UInteger(1));
  EXPECT_EQ(run(values.get()), (std::vector<int>{-10, -11, -12, -13, -14, -15, -16, -17}));
  values->reset();
  negate = false;
  values->setConstantValue(&negate, MTL::DataTypeBool, NS::UInteger(1));  // offset not defined
  EXPECT_EQ(run(values.get()), (std::vector<int>{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007}));
}

TEST_F(MetalApi, AnArgumentOnlyADisabledBranchReadsMayStayUnboundInAKernelTheVectorLanesRun) {
  // As on Metal, a buffer the kernel's code never reads (here behind a function constant that is
  // false) need not be bound: also for a kernel with SIMD-group functions and barriers, whose
  // optimised build holds its vector lanes alone (MLX's quantized matmul leaves x_batch_ndims
  // unbound when it is not batched).
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
#define ROUND acc = acc * 0.5f + shared[(i + 7) % 64]; shared[i % 64] = acc;
#define R4(x) x x x x
constant bool use_bias [[function_constant(0)]];
kernel void summed(device float* out [[buffer(0)]], constant float& bias [[buffer(1)]],
                   uint i [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
  threadgroup float shared[64];
  shared[i % 64] = simd_sum(float(lane));
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float v = shared[(i + 1) % 64];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float acc = 0.0f;
  // A long body, as MLX's GEMMs have: the lanes' coroutine is resumed a call per SIMD-group.
  R4(R4(R4(R4(ROUND))))
  if (use_bias) v += bias;
  out[i] = v + acc * 0.0f;
}
)";
  auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  bool useBias = false;
  values->setConstantValue(&useBias, MTL::DataTypeBool, NS::UInteger(0));
  auto state = pipeline(source, "summed", values.get());
  ASSERT_TRUE(state);
  auto out = NS::TransferPtr(device_->newBuffer(64 * sizeof(float), MTL::ResourceStorageModeShared));
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(state.get());
  enc->setBuffer(out.get(), 0, 0);  // buffer 1 left unbound
  enc->dispatchThreads(MTL::Size(64, 1, 1), MTL::Size(64, 1, 1));
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted)
      << (cb->error() ? cb->error()->localizedDescription()->utf8String() : "");
  const float* p = static_cast<const float*>(out->contents());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(p[i], 496.0f) << i;  // 0 + 1 + ... + 31
}

TEST_F(MetalApi, AFunctionWithoutAValueForARequiredConstantIsRefused) {
  // Metal: a function constant is optional only where is_function_constant_defined tests it;
  // making a function that reads one without its value fails. Read in a function the kernel calls
  // and through a program-scope constant's initialiser counts; a constant only another kernel
  // reads does not.
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
constant float gain [[function_constant(3)]];
constant int shift [[function_constant(4)]];
constant int twice_shift = shift * 2;
constant bool other [[function_constant(5)]];
float scaled(float x) { return x * gain; }
kernel void uses_both(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = scaled(float(i)) + float(twice_shift);
}
kernel void uses_other(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = other ? 1.0f : 2.0f;
}
)";
  NS::Error* error = nullptr;
  auto library = NS::TransferPtr(device_->newLibrary(str(source), nullptr, &error));
  ASSERT_TRUE(library);
  auto make = [&](const char* name, const MTL::FunctionConstantValues* values) {
    error = nullptr;
    auto fn = NS::TransferPtr(library->newFunction(str(name), values, &error));
    return fn ? NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error)) : NS::SharedPtr<MTL::ComputePipelineState>();
  };
  auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  float gain = 2.0f;
  values->setConstantValue(&gain, MTL::DataTypeFloat, NS::UInteger(3));
  EXPECT_FALSE(make("uses_both", values.get()));  // shift, read through twice_shift, has no value
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorCompileFailure);
  std::string text = error->localizedDescription()->utf8String();
  EXPECT_NE(text.find("function constant 'shift'"), std::string::npos) << text;
  EXPECT_NE(text.find("function_constant(4)"), std::string::npos) << text;
  EXPECT_EQ(text.find("gain"), std::string::npos) << text;
  int shift = 1;
  values->setConstantValue(&shift, MTL::DataTypeInt, NS::UInteger(4));
  EXPECT_TRUE(make("uses_both", values.get())) << (error ? error->localizedDescription()->utf8String() : "");
  EXPECT_FALSE(make("uses_other", values.get()));  // `other` is its own
  values->reset();
  bool other = true;
  values->setConstantValue(&other, MTL::DataTypeBool, NS::UInteger(5));
  EXPECT_TRUE(make("uses_other", values.get()));  // gain and shift are not its constants
}

TEST_F(MetalApi, AValueOfAnotherTypeForARequiredConstantIsRefused) {
  // Metal makes a function only with "valid constant values for all required function constants":
  // a value of the declared type, through any alias (int16_t is short, uint is unsigned int).
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
constant int16_t group [[function_constant(0)]];
constant uint count [[function_constant(1)]];
constant bool flip [[function_constant(2)]];
constant half scale [[function_constant(3)]];
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = float(group) + float(count) + (flip ? 1.0f : 0.0f) + float(scale);
}
)";
  NS::Error* error = nullptr;
  auto library = NS::TransferPtr(device_->newLibrary(str(source), nullptr, &error));
  ASSERT_TRUE(library);
  struct Given {
    MTL::DataType group, count, flip, scale;
    const char* refusal;  // null: made
  };
  const Given cases[] = {
      {MTL::DataTypeShort, MTL::DataTypeUInt, MTL::DataTypeBool, MTL::DataTypeHalf, nullptr},
      {MTL::DataTypeInt, MTL::DataTypeUInt, MTL::DataTypeBool, MTL::DataTypeHalf,
       "function constant 'group' (int16_t, [[function_constant(0)]], program_source:4) was given a value of type MTLDataTypeInt"},
      {MTL::DataTypeShort, MTL::DataTypeInt, MTL::DataTypeBool, MTL::DataTypeHalf,
       "function constant 'count' (uint, [[function_constant(1)]], program_source:5) was given a value of type MTLDataTypeInt"},
      {MTL::DataTypeShort, MTL::DataTypeUInt, MTL::DataTypeUChar, MTL::DataTypeHalf, "'flip'"},
      {MTL::DataTypeShort, MTL::DataTypeUInt, MTL::DataTypeBool, MTL::DataTypeFloat, "'scale'"},
  };
  for (const Given& g : cases) {
    auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    uint64_t zero[2] = {0, 0};
    values->setConstantValue(zero, g.group, NS::UInteger(0));
    values->setConstantValue(zero, g.count, NS::UInteger(1));
    values->setConstantValue(zero, g.flip, NS::UInteger(2));
    values->setConstantValue(zero, g.scale, NS::UInteger(3));
    error = nullptr;
    auto fn = NS::TransferPtr(library->newFunction(str("k"), values.get(), &error));
    ASSERT_TRUE(fn);
    auto state = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    if (!g.refusal) {
      EXPECT_TRUE(state) << (error ? error->localizedDescription()->utf8String() : "");
      continue;
    }
    EXPECT_FALSE(state) << g.refusal;
    ASSERT_NE(error, nullptr) << g.refusal;
    EXPECT_EQ(error->code(), MTL::LibraryErrorCompileFailure);
    std::string text = error->localizedDescription()->utf8String();
    EXPECT_NE(text.find(g.refusal), std::string::npos) << text;
  }
}

TEST_F(MetalApi, ACompileErrorComesBackAsAnNSErrorWithTheLine) {
  const char* broken = "#include <metal_stdlib>\nusing namespace metal;\n"
                       "kernel void k(device float* out [[buffer(0)]]) {\n"
                       "  out[0] = undeclared_value;\n}\n";
  NS::Error* error = nullptr;
  MTL::Library* library = device_->newLibrary(str(broken), nullptr, &error);
  EXPECT_EQ(library, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorCompileFailure);
  std::string text = error->localizedDescription()->utf8String();
  EXPECT_NE(text.find("program_source:4:"), std::string::npos) << text;
  EXPECT_NE(text.find("undeclared_value"), std::string::npos) << text;
  // A function the library does not have: null, and an error naming it.
  auto good = NS::TransferPtr(device_->newLibrary(str(kAdd), nullptr, &error));
  ASSERT_TRUE(good);
  EXPECT_EQ(error, nullptr);
  EXPECT_EQ(good->newFunction(str("missing")), nullptr);
  EXPECT_EQ(good->newFunction(str("missing"), nullptr, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFunctionNotFound);
  NS::Array* names = good->functionNames();
  ASSERT_EQ(names->count(), 1u);
  EXPECT_STREQ(names->object<NS::String>(0)->utf8String(), "add");
}

TEST_F(MetalApi, AnOutOfBoundsReadFailsTheCommandBuffer) {
  const char* source = "#include <metal_stdlib>\nusing namespace metal;\n"
                       "kernel void shift(device const float* in [[buffer(0)]], device float* out [[buffer(1)]],\n"
                       "                  uint i [[thread_position_in_grid]]) {\n"
                       "  out[i] = in[i + 1];\n}\n";
  auto state = pipeline(source, "shift");
  ASSERT_TRUE(state);
  auto in = floats(std::vector<float>(64, 1.0f));
  auto out = NS::TransferPtr(device_->newBuffer(64 * sizeof(float), MTL::ResourceStorageModeShared));
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  std::atomic<int> handlerStatus{-1};
  cb->addCompletedHandler([&](MTL::CommandBuffer* done) { handlerStatus = int(done->status()); });
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(state.get());
  enc->setBuffer(in.get(), 0, 0);
  enc->setBuffer(out.get(), 0, 1);
  enc->dispatchThreads(MTL::Size(64, 1, 1), MTL::Size(32, 1, 1));
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(handlerStatus.load(), int(MTL::CommandBufferStatusError));
  ASSERT_NE(cb->error(), nullptr);
  std::string text = cb->error()->localizedDescription()->utf8String();
  EXPECT_NE(text.find("out-of-bounds"), std::string::npos) << text;
  EXPECT_NE(text.find("past the end of buffer 0 (argument 'in')"), std::string::npos) << text;
  EXPECT_NE(text.find("program_source:5"), std::string::npos) << text;
  EXPECT_NE(text.find("shift"), std::string::npos) << text;
}

TEST_F(MetalApi, CompletionHandlersRunInOrderForBuffersCommittedFromSeveralThreads) {
  auto state = pipeline(kScale, "scale");
  ASSERT_TRUE(state);
  auto queueB = NS::TransferPtr(device_->newCommandQueue());
  const int threads = 4, perThread = 5;
  std::mutex mutex;
  std::vector<std::pair<int, int>> order;  // (thread, sequence): per queue, in commit order
  std::vector<std::thread> workers;
  std::atomic<int> handled{0};
  std::vector<NS::SharedPtr<MTL::Buffer>> data(threads);
  for (int t = 0; t < threads; ++t) data[t] = floats(std::vector<float>(32, 1.0f));
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      NS::SharedPtr<NS::AutoreleasePool> pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
      MTL::CommandQueue* queue = t % 2 ? queueB.get() : queue_.get();
      for (int s = 0; s < perThread; ++s) {
        MTL::CommandBuffer* cb = queue->commandBuffer();
        float two = 2.0f;
        MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
        enc->setComputePipelineState(state.get());
        enc->setBuffer(data[t].get(), 0, 0);
        enc->setBytes(&two, sizeof two, 1);
        enc->dispatchThreads(MTL::Size(32, 1, 1), MTL::Size(32, 1, 1));
        enc->endEncoding();
        // Two handlers per buffer: they run in the order added.
        cb->addCompletedHandler([&, t, s](MTL::CommandBuffer*) {
          std::lock_guard<std::mutex> lock(mutex);
          order.push_back({t, 2 * s});
        });
        cb->addCompletedHandler([&, t, s](MTL::CommandBuffer* done) {
          std::lock_guard<std::mutex> lock(mutex);
          order.push_back({t, 2 * s + 1});
          if (done->status() == MTL::CommandBufferStatusCompleted) ++handled;
        });
        cb->commit();
      }
    });
  for (auto& w : workers) w.join();
  // The last buffer of each queue completing means every earlier one has.
  for (MTL::CommandQueue* q : {queue_.get(), queueB.get()}) {
    MTL::CommandBuffer* last = q->commandBuffer();
    last->commit();
    last->waitUntilCompleted();
  }
  EXPECT_EQ(handled.load(), threads * perThread);
  std::vector<int> next(threads, 0);
  for (auto& [t, seq] : order) EXPECT_EQ(seq, next[t]++) << "thread " << t;
  for (int t = 0; t < threads; ++t) EXPECT_EQ(read(data[t].get())[0], float(1 << perThread));
}

TEST_F(MetalApi, ReferenceCountingFollowsCocoaRules) {
  MTL::Buffer* raw = device_->newBuffer(16, MTL::ResourceStorageModeShared);  // +1
  EXPECT_EQ(raw->retainCount(), 1u);
  {
    NS::SharedPtr<MTL::Buffer> a = NS::RetainPtr(raw);  // +1
    NS::SharedPtr<MTL::Buffer> b = a;                   // +1
    EXPECT_EQ(raw->retainCount(), 3u);
    NS::SharedPtr<MTL::Resource> asResource = std::move(b);
    EXPECT_EQ(raw->retainCount(), 3u);
    EXPECT_TRUE(asResource == a);
    // The pointer is the same object through every base.
    EXPECT_EQ(static_cast<void*>(static_cast<MTL::Allocation*>(raw)), static_cast<void*>(raw));
  }
  EXPECT_EQ(raw->retainCount(), 1u);
  raw->release();
  // Autoreleased objects live until the pool drains.
  NS::String* kept = nullptr;
  {
    NS::SharedPtr<NS::AutoreleasePool> inner = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
    kept = NS::String::string("pooled", NS::UTF8StringEncoding)->retain();
    EXPECT_EQ(kept->retainCount(), 2u);
  }
  EXPECT_EQ(kept->retainCount(), 1u);
  EXPECT_STREQ(kept->utf8String(), "pooled");
  kept->release();
  NS::SharedPtr<MTL::Buffer> none = nullptr;
  none.reset();  // null is fine
  // Objective-C's nil messaging, which programs rely on (MLX asks a null buffer for its length).
  MTL::Buffer* volatile opaque = none.get();  // hidden from the compiler, as a program's null is
  MTL::Buffer* nil = opaque;
  EXPECT_EQ(nil->length(), 0u);
  EXPECT_EQ(nil->contents(), nullptr);
  nil->release();
  EXPECT_EQ(NS::String::string("\xff", NS::UTF8StringEncoding), nullptr);
}

TEST_F(MetalApi, PoolsWorkInThreadLocalDestructorsAndAcrossThreads) {
  // MLX keeps per-thread command encoders in a thread_local map whose destructors open pools,
  // possibly after the thread's pool state has gone (found by MLX's tests on std::async threads).
  struct UsesAPoolAtThreadExit {
    ~UsesAPoolAtThreadExit() {
      NS::SharedPtr<NS::AutoreleasePool> pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
      NS::String::string("bye", NS::UTF8StringEncoding);
    }
  };
  std::thread([] {
    static thread_local UsesAPoolAtThreadExit atExit;  // made before the thread's first pool
    (void)&atExit;
    NS::SharedPtr<NS::AutoreleasePool> pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
    NS::String::string("hello", NS::UTF8StringEncoding);
  }).join();
  // A pool pushed on one thread and released on another drains itself, not that thread's pools.
  NS::AutoreleasePool* elsewhere = nullptr;
  std::thread([&] { elsewhere = NS::AutoreleasePool::alloc()->init(); }).join();
  NS::SharedPtr<NS::AutoreleasePool> inner = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
  NS::String* kept = NS::String::string("kept", NS::UTF8StringEncoding)->retain();
  elsewhere->release();
  EXPECT_EQ(kept->retainCount(), 2u);
  inner.reset();
  EXPECT_EQ(kept->retainCount(), 1u);
  kept->release();
}

TEST_F(MetalApi, LibrariesFromFilesAndManifests) {
  std::string dir = ::testing::TempDir() + "/mslsim_metal_library";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/add.metal") << kAdd;
  std::ofstream(dir + "/scale.metal") << kScale;
  std::ofstream(dir + "/kernels.metallib") << "#!mslsim-library\n# the two files\nadd.metal\nscale.metal\n";
  NS::Error* error = nullptr;
  auto lib = NS::TransferPtr(device_->newLibrary(str((dir + "/kernels.metallib").c_str()), &error));
  ASSERT_TRUE(lib) << (error ? error->localizedDescription()->utf8String() : "");
  EXPECT_EQ(lib->functionNames()->count(), 2u);
  auto scale = NS::TransferPtr(lib->newFunction(str("scale")));
  ASSERT_TRUE(scale);
  EXPECT_TRUE(NS::TransferPtr(device_->newComputePipelineState(scale.get(), &error)));
  auto single = NS::TransferPtr(device_->newLibrary(str((dir + "/add.metal").c_str()), &error));
  ASSERT_TRUE(single);
  std::ofstream(dir + "/binary.metallib") << "MTLB\x01\x02";
  EXPECT_EQ(device_->newLibrary(str((dir + "/binary.metallib").c_str()), &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorUnsupported);
  EXPECT_EQ(device_->newLibrary(str((dir + "/absent.metallib").c_str()), &error), nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFileNotFound);
}

// Run as a child process by the test below: prints the functions of the library MSLSIM_TEST_LIBRARY.
TEST_F(MetalApi, DISABLED_PrintFunctionNames) {
  NS::Error* error = nullptr;
  auto lib = NS::TransferPtr(device_->newLibrary(str(std::getenv("MSLSIM_TEST_LIBRARY")), &error));
  ASSERT_TRUE(lib) << (error ? error->localizedDescription()->utf8String() : "");
  std::string names;
  for (NS::UInteger i = 0; i < lib->functionNames()->count(); ++i)
    names += std::string(names.empty() ? "" : ",") + lib->functionNames()->object<NS::String>(i)->utf8String();
  std::printf("functions: %s\n", names.c_str());
}

// Making a library parses its sources (MLX's default library: 3 s); the next process takes the
// list of functions from the compile cache instead, unless a header the source includes changed.
TEST_F(MetalApi, TheNextProcessTakesALibrarysFunctionListFromTheCompileCache) {
  std::string dir = ::testing::TempDir() + "/mslsim_metal_listing";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/factor.h") << "constant float kFactor = 2.0f;\n";
  std::ofstream(dir + "/scale.metal")
      << "#include <metal_stdlib>\n#include \"factor.h\"\nusing namespace metal;\n"
         "kernel void scale(device float* d [[buffer(0)]], uint i [[thread_position_in_grid]]) { d[i] *= kFactor; }\n";
  std::ofstream(dir + "/kernels.metallib") << "#!mslsim-library\nscale.metal\n";
  auto functions = [&] {
    std::string command = "MSLSIM_CACHE_DIR=" + dir + "/cache MSLSIM_TEST_LIBRARY=" + dir +
                          "/kernels.metallib /proc/" + std::to_string(::getpid()) +
                          "/exe --gtest_also_run_disabled_tests --gtest_filter=MetalApi.DISABLED_PrintFunctionNames";
    std::string out;
    if (FILE* p = ::popen(command.c_str(), "r")) {
      char line[4096];
      while (std::fgets(line, sizeof line, p))
        if (std::strncmp(line, "functions: ", 11) == 0) out = std::string(line + 11, std::strcspn(line + 11, "\n"));
      ::pclose(p);
    }
    return out;
  };
  EXPECT_EQ(functions(), "scale");  // parsed; the list is stored
  // The stored list, altered, shows that the next process reads it rather than the source.
  int altered = 0;
  if (FILE* ls = ::popen(("ls " + dir + "/cache/*.json").c_str(), "r")) {
    char path[4096];
    while (std::fgets(path, sizeof path, ls)) {
      path[std::strcspn(path, "\n")] = 0;
      std::ifstream in(path);
      std::string entry((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      size_t at = entry.find("\"declared\":[\"scale\"]");
      if (at == std::string::npos) continue;
      entry.replace(at, 20, "\"declared\":[\"scale\",\"from_the_cache\"]");
      std::ofstream(path) << entry;
      ++altered;
    }
    ::pclose(ls);
  }
  ASSERT_EQ(altered, 1);
  EXPECT_EQ(functions(), "scale,from_the_cache");
  // A changed header makes the stored list stale: the source is parsed again.
  std::ofstream(dir + "/factor.h") << "constant float kFactor = 3.0f;\n";
  EXPECT_EQ(functions(), "scale");
}

TEST_F(MetalApi, DeviceDescribesAnM1ClassGpu) {
  EXPECT_STREQ(device_->architecture()->name()->utf8String(), "applegpu_g13g");
  EXPECT_TRUE(device_->supportsFamily(MTL::GPUFamilyApple7));
  EXPECT_FALSE(device_->supportsFamily(MTL::GPUFamilyMetal3));
  EXPECT_GT(device_->recommendedMaxWorkingSetSize(), 0u);
  NS::SharedPtr<NS::Array> devices = NS::TransferPtr(MTL::CopyAllDevices());
  ASSERT_EQ(devices->count(), 1u);
  EXPECT_EQ(devices->object<MTL::Device>(0), device_.get());
  // A heap hands out buffers until it is full.
  auto descriptor = NS::TransferPtr(MTL::HeapDescriptor::alloc()->init());
  descriptor->setSize(1024);
  descriptor->setResourceOptions(MTL::ResourceStorageModeShared | MTL::ResourceHazardTrackingModeUntracked);
  auto heap = NS::TransferPtr(device_->newHeap(descriptor.get()));
  auto first = NS::TransferPtr(heap->newBuffer(1000, MTL::ResourceStorageModeShared));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->heap(), heap.get());
  EXPECT_EQ(heap->newBuffer(100, MTL::ResourceStorageModeShared), nullptr);
  first.reset();
  EXPECT_TRUE(NS::TransferPtr(heap->newBuffer(100, MTL::ResourceStorageModeShared)));
}

}  // namespace

// --- API validation: what Metal's validation layer stops at fails the command buffer here, with the
// call named (and a line on stderr at the call); allocation failures are nil.

namespace {
// Runs `encode` on a fresh command buffer, commits it, waits, and returns its error text ("" if none).
std::string failureOf(MTL::CommandQueue* queue, const std::function<void(MTL::CommandBuffer*)>& encode) {
  MTL::CommandBuffer* cb = queue->commandBuffer();
  encode(cb);
  cb->commit();
  cb->waitUntilCompleted();
  if (cb->status() != MTL::CommandBufferStatusError || !cb->error()) return "";
  return cb->error()->localizedDescription()->utf8String();
}
}  // namespace

TEST_F(MetalApi, BindingIndicesOutsideMetalsArgumentTableFailTheCommandBuffer) {
  auto state = pipeline(kScale, "scale");
  ASSERT_TRUE(state);
  auto data = floats(std::vector<float>(64, 1.0f));
  float two = 2;
  std::string text = failureOf(queue_.get(), [&](MTL::CommandBuffer* cb) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(state.get());
    enc->setBuffer(data.get(), 0, 0);
    enc->setBytes(&two, sizeof two, 1);
    enc->setBuffer(data.get(), 0, 31);  // Metal has 0 to 30
    enc->dispatchThreads(MTL::Size(64, 1, 1), MTL::Size(64, 1, 1));
    enc->endEncoding();
  });
  EXPECT_NE(text.find("API misuse: setBuffer: index 31 is out of range (Metal has indices 0 to 30)"), std::string::npos)
      << text;
  EXPECT_EQ(read(data.get())[0], 1.0f);  // nothing ran
}

TEST_F(MetalApi, OffsetsPastTheBufferOrMisalignedForTheArgumentFailTheCommandBuffer) {
  const char* source = "#include <metal_stdlib>\nusing namespace metal;\n"
                       "kernel void copy4(device const float4* in [[buffer(0)]], device float4* out [[buffer(1)]],\n"
                       "                  uint i [[thread_position_in_grid]]) { out[i] = in[i]; }\n";
  auto state = pipeline(source, "copy4");
  ASSERT_TRUE(state);
  auto in = floats(std::vector<float>(64, 1.0f));
  auto out = floats(std::vector<float>(64, 0.0f));
  auto encode = [&](NS::UInteger inOffset) {
    return [&, inOffset](MTL::CommandBuffer* cb) {
      MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
      enc->setComputePipelineState(state.get());
      enc->setBuffer(in.get(), inOffset, 0);
      enc->setBuffer(out.get(), 0, 1);
      enc->dispatchThreads(MTL::Size(4, 1, 1), MTL::Size(4, 1, 1));
      enc->endEncoding();
    };
  };
  EXPECT_EQ(failureOf(queue_.get(), encode(16)), "");  // a float4 further: aligned
  std::string text = failureOf(queue_.get(), encode(4));
  EXPECT_NE(text.find("setBuffer: offset 4 at index 0 is not a multiple of 16, the alignment of argument 'in'"),
            std::string::npos) << text;
  text = failureOf(queue_.get(), encode(4096));
  EXPECT_NE(text.find("setBuffer: offset 4096 is past the end of the buffer (256 bytes) at index 0"), std::string::npos)
      << text;
}

TEST_F(MetalApi, SetBytesOverFourKibibytesFailsTheCommandBuffer) {
  auto state = pipeline(kScale, "scale");
  ASSERT_TRUE(state);
  auto data = floats(std::vector<float>(64, 1.0f));
  std::vector<float> big(1025, 2.0f);  // 4,100 bytes
  std::string text = failureOf(queue_.get(), [&](MTL::CommandBuffer* cb) {
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(state.get());
    enc->setBuffer(data.get(), 0, 0);
    enc->setBytes(big.data(), big.size() * sizeof(float), 1);
    enc->dispatchThreads(MTL::Size(64, 1, 1), MTL::Size(64, 1, 1));
    enc->endEncoding();
  });
  EXPECT_NE(text.find("setBytes: 4100 bytes at index 1, more than the 4 KiB Metal allows"), std::string::npos) << text;
}

TEST_F(MetalApi, EncoderAndCommandBufferStateMisuseIsSaidAndNeverHangs) {
  auto state = pipeline(kScale, "scale");
  ASSERT_TRUE(state);
  auto data = floats(std::vector<float>(64, 1.0f));
  // A second encoder while the first is still encoding.
  std::string text = failureOf(queue_.get(), [&](MTL::CommandBuffer* cb) {
    cb->computeCommandEncoder();
    encodeScale(cb, state.get(), data.get(), 2);
  });
  EXPECT_NE(text.find("computeCommandEncoder: a new encoder while the previous one is still encoding"),
            std::string::npos) << text;
  // Committed with an encoder still encoding.
  text = failureOf(queue_.get(), [&](MTL::CommandBuffer* cb) { cb->computeCommandEncoder(); });
  EXPECT_NE(text.find("commit: an encoder is still encoding"), std::string::npos) << text;
  // Waiting for a command buffer never committed returns at once instead of never.
  MTL::CommandBuffer* idle = queue_->commandBuffer();
  idle->waitUntilCompleted();
  idle->waitUntilScheduled();
  EXPECT_EQ(idle->status(), MTL::CommandBufferStatusNotEnqueued);
  // Committed twice: the second commit changes nothing; the work ran once.
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  encodeScale(cb, state.get(), data.get(), 2);
  cb->commit();
  cb->commit();
  cb->waitUntilCompleted();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  EXPECT_EQ(read(data.get())[0], 2.0f);
  // Encoded into it after the commit: said, and not run (its queue may be running it).
  encodeScale(cb, state.get(), data.get(), 2);
  cb->waitUntilCompleted();
  EXPECT_EQ(read(data.get())[0], 2.0f);
  // Events and indirect dispatches encoded after the commit are not added either (the fuzzer's
  // first find: a signal appended while the queue ran the buffer's commands crashed it).
  auto event = NS::TransferPtr(device_->newSharedEvent());
  MTL::CommandBuffer* running = queue_->commandBuffer();
  encodeScale(running, state.get(), data.get(), 2);
  running->commit();
  for (int i = 0; i < 100; ++i) running->encodeSignalEvent(event.get(), i + 1);
  running->encodeWait(event.get(), 5000);  // would never be signalled
  MTL::ComputeCommandEncoder* late = running->computeCommandEncoder();
  late->setComputePipelineState(state.get());
  late->dispatchThreadgroups(data.get(), 0, MTL::Size(64, 1, 1));
  late->endEncoding();
  running->waitUntilCompleted();
  EXPECT_EQ(event->signaledValue(), 0u);
  // Whether the misuse came before its queue started it is timing: then it fails, else it runs.
  if (running->status() == MTL::CommandBufferStatusError)
    EXPECT_EQ(read(data.get())[0], 2.0f);
  else
    EXPECT_EQ(read(data.get())[0], 4.0f);
}

TEST_F(MetalApi, MissingBindingsAndThreadgroupsPastTheLimitsFailTheCommandBuffer) {
  // Metal's validation stops a dispatch whose kernel reads a buffer nobody bound, whose
  // threadgroup memory was never sized or is larger than the device's 32 KiB, or whose threadgroup
  // is larger than the pipeline allows; mslsim fails the command buffer, naming what is wrong,
  // and runs nothing of it.
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
[[max_total_threads_per_threadgroup(64)]]
kernel void staged(device float* data [[buffer(0)]], threadgroup float* stage [[threadgroup(0)]],
                   uint i [[thread_position_in_grid]], uint l [[thread_position_in_threadgroup]]) {
  stage[l] = data[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  data[i] = stage[l] * 2.0f;
}
)";
  auto state = pipeline(source, "staged");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->maxTotalThreadsPerThreadgroup(), 64u);
  auto data = floats(std::vector<float>(128, 1.0f));
  auto dispatch = [&](bool bind, NS::UInteger memory, NS::UInteger group) {
    return failureOf(queue_.get(), [&](MTL::CommandBuffer* cb) {
      MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
      enc->setComputePipelineState(state.get());
      if (bind) enc->setBuffer(data.get(), 0, 0);
      if (memory) enc->setThreadgroupMemoryLength(memory, 0);
      enc->dispatchThreads(MTL::Size(128, 1, 1), MTL::Size(group, 1, 1));
      enc->endEncoding();
    });
  };
  std::string text = dispatch(false, 256, 64);
  EXPECT_NE(text.find("buffer 0 (argument 'data' of kernel 'staged'"), std::string::npos) << text;
  EXPECT_NE(text.find("is not bound"), std::string::npos) << text;
  text = dispatch(true, 0, 64);
  EXPECT_NE(text.find("threadgroup memory 0 (argument 'stage' of kernel 'staged'"), std::string::npos) << text;
  EXPECT_NE(text.find("has no size"), std::string::npos) << text;
  text = dispatch(true, 40000, 64);
  EXPECT_NE(text.find("40000"), std::string::npos) << text;
  EXPECT_NE(text.find("32768"), std::string::npos) << text;
  text = dispatch(true, 512, 128);
  EXPECT_NE(text.find("128"), std::string::npos) << text;
  EXPECT_NE(text.find("64"), std::string::npos) << text;
  EXPECT_EQ(read(data.get())[0], 1.0f);  // nothing ran
  EXPECT_EQ(dispatch(true, 256, 64), "");
  EXPECT_EQ(read(data.get())[0], 2.0f);
}

TEST_F(MetalApi, BuffersLargerThanTheDeviceAllowsAreNil) {
  EXPECT_EQ(device_->newBuffer(NS::UInteger(1) << 50, MTL::ResourceStorageModeShared), nullptr);
  EXPECT_EQ(device_->newBuffer(device_->maxBufferLength() + 1, MTL::ResourceStorageModeShared), nullptr);
  EXPECT_TRUE(NS::TransferPtr(device_->newBuffer(1024, MTL::ResourceStorageModeShared)));
}
