// `mslsim run SPEC.json`: mlx::loadSpecFile on the input written as SPEC.json in an empty private
// directory (so that relative source_file, header_file and .npy references resolve to nothing),
// then what the CLI does next short of compiling: mlx::MetalKernel's construction-time checks and
// the source MLX would generate for the call (MetalKernel::generate, plain text). The expected
// answers to a bad spec are mslsim::Error and MLX's ValueError/RuntimeError; anything else is a
// finding.
//
// Hermetic: an input whose path-valued fields (source_file, header_file, inputs[i] as a string or
// its "file") contain a '/' is skipped, so that no absolute path (/dev/stdin, /dev/zero) or walk
// out of the directory is followed. The check parses the input with the same JSON library; what
// does not parse goes through unchanged (loadSpecFile refuses it).
#include <mslsim/mlx.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "MlxSpecFile.h"

namespace {

bool namesPath(const nlohmann::json& value) {
  return value.is_string() && value.get<std::string>().find('/') != std::string::npos;
}

bool followsPaths(const uint8_t* data, size_t size) {
  nlohmann::json document = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return false;
  for (const char* key : {"source_file", "header_file"})
    if (document.contains(key) && namesPath(document[key])) return true;
  if (document.contains("inputs") && document["inputs"].is_array())
    for (const nlohmann::json& input : document["inputs"])
      if (namesPath(input) || (input.is_object() && input.contains("file") && namesPath(input["file"]))) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (followsPaths(data, size)) return 0;
  std::string path = mslsim_fuzz::writeInput("SPEC.json", data, size);
  try {
    std::unique_ptr<mslsim::mlx::SpecFile> spec = mslsim::mlx::loadSpecFile(path);
    mslsim::mlx::MetalKernel kernel(spec->kernel);
    mslsim::mlx::GeneratedKernel generated = kernel.generate(spec->call);
    volatile size_t sink = generated.source.size() + generated.name.size();
    (void)sink;
  } catch (const mslsim::Error&) {
  } catch (const mslsim::mlx::ValueError&) {
  } catch (const mslsim::mlx::RuntimeError&) {
  }
  return 0;
}
