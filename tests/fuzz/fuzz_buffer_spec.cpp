// Buffer specs, as `--buffer I=SPEC` and a case's "buffers" give them: each line of the input is
// the spec of buffer 0, 1, ... (at most 8), read by readBufferSpecs (what Launch::bindBufferSpecs
// binds), which hands data specs to parseBufferSpec (zeros:/fill:/scalar:/iota:, else a .npy path)
// and parses views (@J, @J+BYTES) itself.
//
// Hermetic: an input that names a file (a '/' anywhere, or a spec ending in .npy) is skipped, and
// the base directory is an empty private one, so any other path names nothing. Counts from 2^20
// elements to 10^15 are skipped, so that the harness does not allocate gigabytes: parseBufferSpec
// itself only refuses more than the machine's memory (still fuzzed: 10^15 elements is more than
// any machine this runs on), and -rss_limit_mb catches the rest.
#include <mslsim/host_array.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "UserInput.h"

namespace {

constexpr double kMaxCount = double(1 << 20), kRefusedCount = 1e15;

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether the spec asks for more elements than the harness allows but fewer than parseBufferSpec
// refuses (the count is read as parseBufferSpec reads it: the third ':'-separated part, as
// std::stod would).
bool tooLarge(const std::string& spec) {
  std::vector<std::string> parts;
  std::stringstream ss(spec);
  std::string part;
  while (std::getline(ss, part, ':')) parts.push_back(part);
  if (parts.size() < 3 || (parts[0] != "zeros" && parts[0] != "fill" && parts[0] != "iota")) return false;
  double count = std::strtod(parts[2].c_str(), nullptr);
  return count > kMaxCount && count < kRefusedCount;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  if (input.find('/') != std::string::npos) return 0;
  std::map<unsigned, std::string> specs;
  std::stringstream lines(input);
  std::string line;
  for (unsigned index = 0; index < 8 && std::getline(lines, line); ++index) {
    if (endsWith(line, ".npy") || tooLarge(line)) return 0;
    specs[index] = line;
  }
  static const std::string baseDir = [] {
    std::string dir = mslsim_fuzz::privateDirectory() + "/empty";  // "." and ".." name directories
    std::filesystem::create_directory(dir);
    return dir;
  }();
  std::map<unsigned, mslsim::HostArray> storage;
  std::map<unsigned, mslsim::BufferView> views;
  try {
    views = mslsim::readBufferSpecs(specs, storage, baseDir, "--buffer");
  } catch (const mslsim::Error&) {
    return 0;
  }
  for (auto& [index, view] : views)
    if (!storage.count(view.allocation) || views.count(view.allocation))
      mslsim_fuzz::invariantFailed("a view of something that is not an allocation");
  for (auto& [index, array] : storage) {
    if (array.bytes.size() != array.count() * mslsim::dtypeSize(array.dtype))
      mslsim_fuzz::invariantFailed("data size is not a whole number of elements");
    uint64_t elements = 1;
    for (uint64_t d : array.shape) elements *= d;
    if (elements != array.count()) mslsim_fuzz::invariantFailed("count() != product of the shape");
    volatile double sink = 0;
    for (uint64_t i = 0; i < array.count(); ++i) sink = sink + array.valueAt(i);
  }
  return 0;
}
