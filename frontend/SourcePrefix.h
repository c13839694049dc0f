// Where a source's precompilable prefix ends: the text before its first kernel, if it is a whole
// sequence of top-level declarations that the front end can precompile once and share between
// compilations (see PrecompiledPrefix in MslCompiler.cpp).
//
// Why: MLX's JIT libraries are ~75 KB of the same headers followed by a few lines that instantiate
// kernels (the C++ suite's 357 library sources have 27 distinct prefixes), and parsing those
// headers was most of every compile. Plain text, no Clang: the scan only proposes a split; the
// front end precompiles the prefix and falls back to parsing the whole file when Clang does not
// accept it on its own (a split inside a declaration always leaves the prefix incomplete).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace mslsim {

struct SourcePrefix {
  size_t bytes = 0;     // the prefix is source[0, bytes), whole lines
  unsigned lines = 0;   // how many lines it has
  // Where the text after it is, as line directives had it at the split: the presumed file name
  // (empty: the file itself) and line number, so the rest keeps the positions it had.
  std::string presumedName;
  unsigned presumedLine = 1;
};

// Prefixes shorter than this are not worth a precompiled header of their own.
constexpr size_t kMinimumPrecompiledPrefix = 16 * 1024;

// The prefix of `source` before the first line that begins a kernel (`[[kernel]]`, `kernel `,
// `template [[host_name(...)]]`), backed up to the last line that starts outside every brace,
// parenthesis, comment, conditional and continued line, just after a `;`, `}` or directive; none
// if that is shorter than kMinimumPrecompiledPrefix, or if the prefix includes anything but
// headers `embedded` accepts (a user header's text is not part of the prefix's key), or has a
// line directive the scan does not follow.
std::optional<SourcePrefix> precompilablePrefix(const std::string& source,
                                                const std::function<bool(const std::string&)>& embedded);

}  // namespace mslsim
