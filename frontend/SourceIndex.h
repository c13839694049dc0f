// The user's files as they wrote them, with the column shifts the rewriter made: what turns a
// location in the compiled text (debug info, __builtin_COLUMN) back into the user's file, line,
// column and source line. Plain data, shared by the front end's diagnostics and the simulator's
// reports.
#pragma once

#include <map>
#include <string>

#include <mslsim/kernel_info.h>
#include "SourceRewriter.h"

namespace mslsim {

class SourceIndex {
 public:
  void add(const std::string& path, std::string original, ColumnMap columns) {
    files_[path] = {std::move(original), std::move(columns)};
  }
  // The user's column for a column of the compiled text; unknown files pass through.
  SourcePosition map(const std::string& file, unsigned line, unsigned column) const {
    auto it = files_.find(file);
    if (it == files_.end()) return {file, line, column};
    return {file, line, it->second.columns.originalColumn(line, column)};
  }
  bool isUserFile(const std::string& file) const { return files_.count(file) != 0; }
  // The original text of `line` (1-based) of `file`, without its newline; "" if unknown.
  std::string line(const std::string& file, unsigned line) const {
    auto it = files_.find(file);
    return it == files_.end() ? "" : lineOfText(it->second.original, line);
  }

  // Line `line` (1-based) of `text`, without its line ending; "" past the end.
  static std::string lineOfText(const std::string& text, unsigned line) {
    size_t start = 0;
    for (unsigned l = 1; l < line; ++l) {
      start = text.find('\n', start);
      if (start == std::string::npos) return "";
      ++start;
    }
    size_t end = text.find('\n', start);
    std::string s = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!s.empty() && s.back() == '\r') s.pop_back();
    return s;
  }

 public:
  struct File {
    std::string original;
    ColumnMap columns;
  };
  const std::map<std::string, File>& files() const { return files_; }

 private:
  std::map<std::string, File> files_;
};

}  // namespace mslsim
