// Turns MSL source text into text that Clang 16 in C++17 mode accepts, without changing line
// numbers, and records how columns moved so diagnostics can point at the user's original text.
//
// What it rewrites (the rest of MSL is handled by the prelude's macros and the standard library):
//  * attribute lists: `[[buffer(0)]]` -> `__attribute__((msl_buffer(0)))`. Clang drops the arguments
//    of unknown C++11-spelled attributes before a plugin sees them, while GNU-spelled plugin
//    attributes keep them. Standard C++ attributes stay in `[[...]]` form. This runs before the
//    preprocessor, so attribute lists are rewritten before the `threadgroup`/`kernel` macros could
//    touch them.
//  * literal suffixes: `1.5h` -> `1.5f16` (half), `1.5bf` -> `::metal::bfloat(1.5f)`.
#pragma once

#include <string>
#include <vector>

namespace mslsim {

// Maps columns of a rewritten line back to columns of the original line (both 1-based).
class ColumnMap {
 public:
  // An edit on `line` replaced original columns [inStart, inStart+inLength) by output columns
  // [outStart, outStart+outLength). Edits of a line must be added left to right.
  void addEdit(unsigned line, unsigned outStart, unsigned outLength, unsigned inStart,
               unsigned inLength);
  unsigned originalColumn(unsigned line, unsigned outputColumn) const;
  // An insertion before edits already recorded on the line: later edits shift right.
  void insertEdit(unsigned line, unsigned outStart, unsigned outLength, unsigned inStart, unsigned inLength);

  struct Edit {
    unsigned line, outStart, outLength, inStart, inLength;
  };
  const std::vector<Edit>& edits() const { return edits_; }

 private:
  std::vector<Edit> edits_;  // sorted by (line, outStart) because the rewriter goes left to right
};

struct RewriteNote {
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
};

struct RewrittenSource {
  std::string text;
  ColumnMap columns;
  std::vector<RewriteNote> warnings;
};

RewrittenSource rewriteMslSource(const std::string& source);

}  // namespace mslsim
