// Compiled kernels on disk, so a second run of the same kernel (in any process) skips Clang and
// code generation. An entry is keyed by the source, the options, mslsim's own build and the
// embedded headers, and remembers the user headers the program included: if one changed, the
// entry is not used. Directory: $MSLSIM_CACHE_DIR, else $XDG_CACHE_HOME/mslsim, else
// ~/.cache/mslsim; MSLSIM_CACHE_DIR=off disables it.
//
// One directory may be shared by concurrent processes and machines (pytest-xdist workers, a cache
// on shared storage): an entry is written under a temporary name and renamed into place (a reader
// sees all of it or none; two writers of one key write the same name), reads take no lock, and an
// entry whose object does not match the SHA-256 its description records is a miss. The directory
// is kept under $MSLSIM_CACHE_SIZE bytes (K, M, G suffixes; default 4G): a process that has
// written a sixteenth of that since it last looked removes the least recently used entries and
// precompiled headers (a load marks an entry used) down to three quarters of it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Jit.h"

namespace mslsim {

struct CachedCompilation {
  CompiledObject object;
  std::vector<Diagnostic> warnings;
  // A listing (a compile that chose no kernel: checked, no code) holds no object, only the names of
  // the kernels it declares, so that a library made of it needs no parse in the next process.
  std::optional<std::vector<std::string>> declaredKernels;
};

class CompileCache {
 public:
  static CompileCache& instance();
  bool enabled() const { return !dir_.empty(); }
  const std::string& directory() const { return dir_; }

  // `variant`: the code's kind ("checked", "unchecked-quick", ...).
  static std::string key(const std::string& path, const std::string& source, const CompileOptions& options,
                         const std::string& variant, const std::string& fingerprint);
  // `mainSource`: the text of `mainPath` the key was made from. An entry does not repeat it (MLX's
  // library sources are 75-195 KB; reading them back out of JSON was most of a cached pipeline).
  std::optional<CachedCompilation> load(const std::string& key, const std::string& mainPath,
                                        const std::string& mainSource) const;
  void store(const std::string& key, const std::string& mainPath, const CompiledObject& object,
             const std::vector<Diagnostic>& warnings,
             const std::optional<std::vector<std::string>>& declaredKernels = std::nullopt) const;

  uint64_t sizeBound() const { return bound_; }
  // Removes the least recently used entries until the directory holds at most `target` bytes, and
  // temporary files writers left more than an hour ago. Files that are not the cache's are kept.
  void trim(uint64_t target) const;

 private:
  CompileCache();
  // Whether a process trimmed this (large) cache in the last minute (the file kLastTrim's time).
  bool trimmedRecently() const;
  static constexpr const char* kLastTrim = "last-trim";
  std::string dir_;
  uint64_t bound_ = 4ull << 30;
  mutable std::atomic<uint64_t> writtenSinceTrim_{0};
};

}  // namespace mslsim
