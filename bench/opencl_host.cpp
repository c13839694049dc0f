// A small OpenCL host program: the peers' side of bench/run.py (POCL through the ICD loader,
// Oclgrind through its `oclgrind` wrapper, which preloads its own OpenCL runtime).
//
//   opencl_host --platform NAME --file K.cl --kernel K --global X[,Y] --local X[,Y]
//               --arg SPEC ... [--output INDEX=out.npy ...] [--repeat N] [--warmup N] [--build-options S]
//   opencl_host --platform NAME --info
//
// SPEC, one per kernel argument in order: npy:PATH | zeros:float32|uint32:COUNT (buffers),
// float:V | uint:V (scalars), local:BYTES (__local memory). NAME is matched case-insensitively
// against the platform's name, vendor and version ("pocl", "oclgrind").
// Prints "build_ms=F first_ms=F kernel_ms_median=F kernel_ms_min=F": the program build, the first
// (warm-up) enqueue, and the median and minimum of the timed enqueues, each between clFinish calls.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS  // clCreateCommandQueue, for Oclgrind (OpenCL 1.2)
#include <CL/cl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "npy.h"

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "opencl_host: %s\n", message.c_str());
  std::exit(2);
}

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) die(std::string(what) + " failed with OpenCL error " + std::to_string(err));
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string platformInfo(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  clGetPlatformInfo(p, what, 0, nullptr, &size);
  std::string s(size, '\0');
  clGetPlatformInfo(p, what, size, s.data(), nullptr);
  return s.c_str();
}

std::string deviceInfo(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS) return "";
  std::string s(size, '\0');
  clGetDeviceInfo(d, what, size, s.data(), nullptr);
  return s.c_str();
}

// The first platform whose name, vendor or version mentions `name`.
cl_platform_id findPlatform(const std::string& name) {
  cl_uint count = 0;
  check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(count);
  check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
  std::string seen;
  for (cl_platform_id p : platforms) {
    std::string text = platformInfo(p, CL_PLATFORM_NAME) + " / " + platformInfo(p, CL_PLATFORM_VENDOR) + " / " +
                       platformInfo(p, CL_PLATFORM_VERSION);
    if (lower(text).find(lower(name)) != std::string::npos) return p;
    seen += "\n  " + text;
  }
  die("no OpenCL platform matches '" + name + "'; platforms:" + seen);
}

std::vector<size_t> sizes(const std::string& text) {
  std::vector<size_t> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) out.push_back(std::stoull(part));
  return out;
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One kernel argument, made from its SPEC.
struct Arg {
  cl_mem buffer = nullptr;
  std::string dtype;        // of a buffer, for writing it back as .npy
  size_t count = 0;         // elements of a buffer
  std::vector<char> value;  // a scalar's bytes
  size_t localBytes = 0;
};

Arg makeArg(cl_context context, const std::string& spec) {
  Arg arg;
  size_t colon = spec.find(':');
  if (colon == std::string::npos) die("argument spec without a kind: " + spec);
  std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  cl_int err = CL_SUCCESS;
  if (kind == "npy") {
    npy::Array a = npy::load(rest);
    arg.dtype = a.dtype;
    arg.count = a.count();
    arg.buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * a.count(), a.data.data(), &err);
  } else if (kind == "zeros") {
    size_t colon2 = rest.find(':');
    std::string dtype = rest.substr(0, colon2);
    if (dtype != "float32" && dtype != "uint32") die("zeros: float32 or uint32, not " + dtype);
    arg.dtype = dtype == "float32" ? "<f4" : "<u4";
    arg.count = std::stoull(rest.substr(colon2 + 1));
    std::vector<uint32_t> zeros(arg.count, 0);
    arg.buffer = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * arg.count, zeros.data(), &err);
  } else if (kind == "float") {
    float v = std::stof(rest);
    arg.value.assign(reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 4);
  } else if (kind == "uint") {
    cl_uint v = cl_uint(std::stoul(rest));
    arg.value.assign(reinterpret_cast<char*>(&v), reinterpret_cast<char*>(&v) + 4);
  } else if (kind == "local") {
    arg.localBytes = std::stoull(rest);
  } else {
    die("unknown argument kind: " + spec);
  }
  check(err, "clCreateBuffer");
  return arg;
}

}  // namespace

int main(int argc, char** argv) {
  std::string platformName, file, kernelName, buildOptions;
  std::vector<std::string> outputs;
  std::vector<size_t> global, local;
  std::vector<std::string> argSpecs;
  int repeat = 3, warmup = 1;
  bool info = false;
  for (int i = 1; i < argc; ++i) {
    std::string opt = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value for " + opt);
      return argv[++i];
    };
    if (opt == "--platform") platformName = value();
    else if (opt == "--file") file = value();
    else if (opt == "--kernel") kernelName = value();
    else if (opt == "--global") global = sizes(value());
    else if (opt == "--local") local = sizes(value());
    else if (opt == "--arg") argSpecs.push_back(value());
    else if (opt == "--output") outputs.push_back(value());
    else if (opt == "--repeat") repeat = std::stoi(value());
    else if (opt == "--warmup") warmup = std::stoi(value());
    else if (opt == "--build-options") buildOptions = value();
    else if (opt == "--info") info = true;
    else die("unknown option " + opt);
  }
  if (platformName.empty()) die("--platform is required");

  cl_platform_id platform = findPlatform(platformName);
  cl_device_id device;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");

  if (info) {
    // What run.py needs to decide whether the sub-group kernels can run on this peer.
    cl_uint maxSubGroups = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof maxSubGroups, &maxSubGroups, nullptr);
    bool subGroups = deviceInfo(device, CL_DEVICE_EXTENSIONS).find("cl_khr_subgroups") != std::string::npos ||
                     maxSubGroups > 0;
    cl_bool collectives = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, sizeof collectives, &collectives, nullptr);
    std::printf("platform=%s\ndevice=%s\nversion=%s\nsubgroups=%d\nwork_group_collectives=%d\n",
                platformInfo(platform, CL_PLATFORM_VERSION).c_str(), deviceInfo(device, CL_DEVICE_NAME).c_str(),
                deviceInfo(device, CL_DEVICE_VERSION).c_str(), subGroups ? 1 : 0, collectives ? 1 : 0);
    return 0;
  }
  if (file.empty() || kernelName.empty() || global.empty() || global.size() != local.size())
    die("--file, --kernel, --global and --local (same dimensions) are required");

  cl_int err;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  // The OpenCL 1.2 call: Oclgrind's runtime implements 1.2 only.
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  check(err, "clCreateCommandQueue");

  std::ifstream in(file);
  if (!in) die("cannot read " + file);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* text = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  auto buildStart = std::chrono::steady_clock::now();
  err = clBuildProgram(program, 1, &device, buildOptions.c_str(), nullptr, nullptr);
  double buildMs = msSince(buildStart);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "%s\n", [&] {
      size_t size = 0;
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      return log;
    }().c_str());
    check(err, "clBuildProgram");
  }
  cl_kernel kernel = clCreateKernel(program, kernelName.c_str(), &err);
  check(err, "clCreateKernel");

  std::vector<Arg> args;
  for (const std::string& spec : argSpecs) args.push_back(makeArg(context, spec));
  for (cl_uint i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    if (a.buffer) err = clSetKernelArg(kernel, i, sizeof(cl_mem), &a.buffer);
    else if (a.localBytes) err = clSetKernelArg(kernel, i, a.localBytes, nullptr);
    else err = clSetKernelArg(kernel, i, a.value.size(), a.value.data());
    check(err, ("clSetKernelArg " + std::to_string(i)).c_str());
  }

  // Each enqueue is timed alone between clFinish calls: the figure is the kernel's run time,
  // with POCL's lazy per-work-group-size compilation falling into the first (warm-up) enqueue.
  auto enqueue = [&] {
    check(clFinish(queue), "clFinish");
    auto start = std::chrono::steady_clock::now();
    check(clEnqueueNDRangeKernel(queue, kernel, cl_uint(global.size()), nullptr, global.data(), local.data(), 0,
                                 nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clFinish(queue), "clFinish");
    return msSince(start);
  };
  double firstMs = 0;
  for (int r = 0; r < warmup; ++r) {
    double ms = enqueue();
    if (r == 0) firstMs = ms;
  }
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) times.push_back(enqueue());
  std::sort(times.begin(), times.end());
  std::printf("build_ms=%.3f first_ms=%.3f kernel_ms_median=%.3f kernel_ms_min=%.3f\n", buildMs, firstMs,
              times.empty() ? 0.0 : times[times.size() / 2], times.empty() ? 0.0 : times[0]);

  for (const std::string& output : outputs) {
    size_t eq = output.find('=');
    if (eq == std::string::npos) die("--output INDEX=path.npy");
    const Arg& a = args.at(std::stoul(output.substr(0, eq)));
    if (!a.buffer) die("--output names an argument that is not a buffer");
    std::vector<uint32_t> host(a.count);
    check(clEnqueueReadBuffer(queue, a.buffer, CL_TRUE, 0, 4 * a.count, host.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
    npy::save(output.substr(eq + 1), a.dtype, host.data(), a.count);
  }
  for (Arg& a : args)
    if (a.buffer) clReleaseMemObject(a.buffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
