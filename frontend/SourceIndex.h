// The user's files as they wrote them, with the column shifts the rewriter made: what turns a
// location in the compiled text (debug info, __builtin_COLUMN) back into the user's file, line,
// column and source line. Plain data, shared by the front end's diagnostics and the simulator's
// reports.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include <mslsim/kernel_info.h>
#include "SourceRewriter.h"

namespace mslsim {

class SourceIndex {
 public:
  // `presumed`: a file only named by line directives of another (see addPresumedFiles), not on disk.
  void add(const std::string& path, std::string original, ColumnMap columns, bool presumed = false) {
    files_[path] = {std::move(original), std::move(columns), presumed};
  }

  // Generated sources (MLX's JIT kernels, preprocessor output) name the files their lines came
  // from with `#line N "name"` or `# N "name"` line markers, and the debug information, like
  // Metal's own reports, gives positions in those names. Each name that is not a user file
  // becomes a presumed file of its own: the lines that follow its directives, at the line numbers
  // they say, with the rewriter's column edits of those lines.
  void addPresumedFiles(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) return;
    const std::string& text = it->second.original;
    struct Line {
      unsigned physical;  // the line of `path`
      std::string text;
    };
    std::map<std::string, std::map<unsigned, Line>> presumed;  // name -> its line number -> line
    std::string name = path;
    unsigned presumedLine = 1;
    unsigned physical = 1;
    for (size_t start = 0; start <= text.size(); ++physical) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      unsigned number = 0;
      std::string newName;
      if (parseLineDirective(line, number, newName)) {
        if (!newName.empty()) name = newName;
        presumedLine = number;
      } else {
        if (name != path) presumed[name].emplace(presumedLine, Line{physical, line});
        ++presumedLine;
      }
      start = end + 1;
    }
    for (auto& [file, lines] : presumed) {
      if (files_.count(file)) continue;  // a real file of that name: its own text says it
      std::string original;
      ColumnMap columns;
      unsigned at = 1;
      const auto& edits = it->second.columns.edits();
      for (auto& [number, line] : lines) {
        for (; at < number; ++at) original += '\n';
        original += line.text + '\n';
        ++at;
        auto e = std::lower_bound(edits.begin(), edits.end(), line.physical,
                                  [](const ColumnMap::Edit& edit, unsigned l) { return edit.line < l; });
        for (; e != edits.end() && e->line == line.physical; ++e)
          columns.addEdit(number, e->outStart, e->outLength, e->inStart, e->inLength);
      }
      files_[file] = {std::move(original), std::move(columns), true};
    }
  }

  // `#line N ["name"]` or `# N ["name"] [flags]`: the number and the name ("" when not given).
  static bool parseLineDirective(const std::string& line, unsigned& number, std::string& name) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') return false;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos) return false;
    if (line.compare(i, 4, "line") == 0) i = line.find_first_not_of(" \t", i + 4);
    if (i == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[i]))) return false;
    number = 0;
    for (; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i) number = number * 10 + unsigned(line[i] - '0');
    name.clear();
    size_t quote = line.find('"', i);
    if (quote != std::string::npos) {
      size_t close = line.find('"', quote + 1);
      if (close == std::string::npos) return false;
      name = line.substr(quote + 1, close - quote - 1);
    }
    return true;
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
    bool presumed = false;  // named by line directives only: no file on disk to compare with
  };
  const std::map<std::string, File>& files() const { return files_; }

 private:
  std::map<std::string, File> files_;
};

}  // namespace mslsim
