// `mslsim run SPEC.json`: an MLX-style kernel described as data (factory arguments, call arguments,
// .npy inputs and outputs), so MLX kernel bodies run from the command line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <mslsim/mlx.h>

namespace mslsim {
namespace mlx {

struct SpecFile {
  KernelSpec kernel;
  Call call;
  std::vector<std::string> outputPaths;  // where to write each output (may be fewer than outputs)
  std::vector<HostArray> inputStorage;   // the data the call's input views point into
};

// Reads and validates SPEC.json; paths inside it are relative to its directory. Throws Error
// naming the field at fault.
std::unique_ptr<SpecFile> loadSpecFile(const std::string& path);

}  // namespace mlx
}  // namespace mslsim
