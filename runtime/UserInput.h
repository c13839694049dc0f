// What users write, read and checked before anything is compiled or run: files read whole up to a
// limit, `--check` lists, `--schedule` names and buffer specs. No LLVM and no simulator here, so
// that the parsers are small enough to fuzz in every test run (tests/fuzz).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <mslsim/host_array.h>
#include <mslsim/types.h>

namespace mslsim {

// parseCheckList (`--check` lists) is declared with CheckSet in <mslsim/types.h>.
// Parses `--schedule`: "in-order", "reverse", "random" or "random:SEED" (throws Error).
Schedule parseSchedule(const std::string& text);

// Files users write (MSL sources, SPEC.json, case.json) are read whole up to this size: more is
// refused, so that /dev/zero or a runaway file ends with a message; a pipe or /dev/stdin works.
constexpr uint64_t kMaxTextFileBytes = uint64_t(64) << 20;
// The text of such a file (throws Error naming the file when it cannot be read, is a directory or
// is larger than kMaxTextFileBytes).
std::string readTextFile(const std::string& path);

// A buffer bound again at a byte offset into another index's allocation (`@J`, `@J+BYTES`).
struct BufferView {
  unsigned allocation;  // the index whose data spec made the allocation
  uint64_t offset;      // bytes
};

// Reads buffers given as specs (index -> spec), the way the CLI's `--buffer I=SPEC` and a suite
// case's "buffers" give them: each data spec (parseBufferSpec, relative to `baseDir`) becomes an
// allocation in `storage` at its index; each `@J` or `@J+BYTES` is returned as a view of buffer
// J's allocation. Throws Error (prefixed by `what`, e.g. "--buffer") for a malformed spec or a view
// of a buffer that is not an allocation.
std::map<unsigned, BufferView> readBufferSpecs(const std::map<unsigned, std::string>& specs,
                                               std::map<unsigned, HostArray>& storage, const std::string& baseDir,
                                               const std::string& what);

}  // namespace mslsim
