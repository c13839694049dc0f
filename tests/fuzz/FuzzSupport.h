// Shared by the fuzz targets: a private temporary directory (so that a relative path in a fuzzed
// input resolves to nothing) and writing the input to a file in it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mslsim_fuzz {

// An empty directory of this process's own under $TMPDIR (scripts/fuzz.sh points it into
// build-fuzz/), removed at exit. Harnesses write their input files here and nothing else.
inline const std::string& privateDirectory() {
  struct Directory {
    std::string path;
    Directory() {
      const char* tmp = std::getenv("TMPDIR");
      path = std::string(tmp && *tmp ? tmp : "/tmp") + "/mslsim-fuzz-XXXXXX";
      if (!mkdtemp(path.data())) {
        std::perror("mkdtemp");
        std::abort();
      }
    }
    ~Directory() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Directory directory;
  return directory.path;
}

// Writes `size` bytes to `name` in the private directory; returns the file's path.
inline std::string writeInput(const std::string& name, const uint8_t* data, size_t size) {
  std::string path = privateDirectory() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  out.close();
  if (!out) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

// A harness's own consistency check failed: a bug the fuzzer must report as a crash.
[[noreturn]] inline void invariantFailed(const char* what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
  std::abort();
}

}  // namespace mslsim_fuzz
