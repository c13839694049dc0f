// A metal-cpp program as it is written for macOS, unchanged: it builds against Apple's metal-cpp
// and the Metal framework on a Mac, and against mslsim::metal on Linux. It runs a row softmax on
// the GPU (here: the simulator, with its checks) and compares it with a C++ loop.
//
//   metal_cpp_softmax KERNELS.metal
#define NS_PRIVATE_IMPLEMENTATION
#define MTL_PRIVATE_IMPLEMENTATION
#include <Foundation/Foundation.hpp>
#include <Metal/Metal.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s KERNELS.metal\n", argv[0]);
    return 2;
  }
  std::ifstream file(argv[1]);
  if (!file) {
    std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 2;
  }
  std::stringstream source;
  source << file.rdbuf();

  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  MTL::Device* device = MTL::CreateSystemDefaultDevice();
  if (!device) {
    std::fprintf(stderr, "%s: no Metal device\n", argv[0]);
    return 2;
  }
  NS::Error* error = nullptr;
  MTL::CompileOptions* options = MTL::CompileOptions::alloc()->init();
  options->setFastMathEnabled(false);
  MTL::Library* library =
      device->newLibrary(NS::String::string(source.str().c_str(), NS::UTF8StringEncoding), options, &error);
  if (!library) {
    std::fprintf(stderr, "compile error:\n%s\n", error->localizedDescription()->utf8String());
    return 2;
  }
  MTL::Function* function = library->newFunction(NS::String::string("row_softmax", NS::UTF8StringEncoding));
  MTL::ComputePipelineState* pipeline = device->newComputePipelineState(function, &error);
  if (!pipeline) {
    std::fprintf(stderr, "pipeline error:\n%s\n", error->localizedDescription()->utf8String());
    return 2;
  }

  const uint32_t rows = 64, columns = 1000;
  std::vector<float> input(rows * columns);
  for (size_t i = 0; i < input.size(); ++i) input[i] = std::sin(0.37f * float(i)) * 4.0f;
  MTL::Buffer* in = device->newBuffer(input.data(), input.size() * sizeof(float), MTL::ResourceStorageModeShared);
  MTL::Buffer* out = device->newBuffer(input.size() * sizeof(float), MTL::ResourceStorageModeShared);

  MTL::CommandQueue* queue = device->newCommandQueue();
  MTL::CommandBuffer* commands = queue->commandBuffer();
  MTL::ComputeCommandEncoder* encoder = commands->computeCommandEncoder();
  encoder->setComputePipelineState(pipeline);
  encoder->setBuffer(in, 0, 0);
  encoder->setBuffer(out, 0, 1);
  encoder->setBytes(&columns, sizeof columns, 2);
  NS::UInteger threads = std::min<NS::UInteger>(256, pipeline->maxTotalThreadsPerThreadgroup());
  encoder->dispatchThreadgroups(MTL::Size(rows, 1, 1), MTL::Size(threads, 1, 1));
  encoder->endEncoding();
  commands->commit();
  commands->waitUntilCompleted();
  if (commands->status() == MTL::CommandBufferStatusError) {
    std::fprintf(stderr, "the GPU reported an error:\n%s\n", commands->error()->localizedDescription()->utf8String());
    return 1;
  }

  // The same softmax as a C++ loop, in double precision.
  const float* result = static_cast<const float*>(out->contents());
  double worst = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    const float* x = &input[r * columns];
    double m = -INFINITY, sum = 0;
    for (uint32_t c = 0; c < columns; ++c) m = std::fmax(m, x[c]);
    for (uint32_t c = 0; c < columns; ++c) sum += std::exp(x[c] - m);
    for (uint32_t c = 0; c < columns; ++c)
      worst = std::fmax(worst, std::fabs(result[r * columns + c] - std::exp(x[c] - m) / sum));
  }
  std::printf("metal-cpp row_softmax: %u rows x %u columns on %s, largest difference from the C++ loop %.2g\n",
              rows, columns, device->name()->utf8String(), worst);

  in->release();
  out->release();
  queue->release();
  pipeline->release();
  function->release();
  library->release();
  options->release();
  device->release();
  pool->release();
  return worst < 1e-6 ? 0 : 1;
}
