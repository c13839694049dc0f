#include "SourcePrefix.h"

#include <cctype>
#include <string_view>

#include "SourceIndex.h"

namespace mslsim {
namespace {

std::string_view trimmedFront(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r");
  return i == std::string_view::npos ? std::string_view() : line.substr(i);
}

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The line begins a kernel: its definition, or an explicit instantiation that names one.
bool beginsKernel(std::string_view line) {
  line = trimmedFront(line);
  for (std::string_view start : {"[[kernel]]", "kernel ", "kernel\t", "[[host_name", "template [[host_name",
                                 "template[[host_name"})
    if (startsWith(line, start)) return true;
  return false;
}

// The state of the scan at the start of a line.
struct Scan {
  bool inBlockComment = false;
  bool inDirective = false;  // a directive continued onto this line
  bool continued = false;    // the line before ended in a backslash
  int depth = 0;             // braces, parentheses and brackets open
  int conditionals = 0;      // #if blocks open
  char lastSignificant = 0;  // the last character of code before here ('#': a directive ended; 0: none yet)

  bool atTopLevelBoundary() const {
    return !inBlockComment && !inDirective && !continued && depth == 0 && conditionals == 0 &&
           (lastSignificant == 0 || lastSignificant == ';' || lastSignificant == '}' || lastSignificant == '#');
  }

  // Comments, literals and brackets of one line of code (or of a directive: only its comments count).
  void scanCharacters(std::string_view line, bool code) {
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (inBlockComment) {
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') {
          inBlockComment = false;
          ++i;
        }
        continue;
      }
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') return;
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
        inBlockComment = true;
        ++i;
        continue;
      }
      if (c == '"' || (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(line[i - 1]))))) {
        for (++i; i < line.size() && line[i] != c; ++i)
          if (line[i] == '\\') ++i;
        if (code) lastSignificant = c;
        continue;
      }
      if (!code || c == ' ' || c == '\t' || c == '\r' || c == '\\') continue;
      if (c == '{' || c == '(' || c == '[') ++depth;
      if (c == '}' || c == ')' || c == ']') --depth;
      lastSignificant = c;
    }
  }
};

enum class DirectiveVerdict { Follow, Refuse };

// A directive line: conditionals nest, includes must be embedded headers, line directives move
// the presumed position (applied by the caller to the next line).
DirectiveVerdict directive(std::string_view line, Scan& scan, const std::function<bool(const std::string&)>& embedded,
                           std::string& presumedName, unsigned& nextPresumedLine) {
  std::string_view rest = trimmedFront(trimmedFront(line).substr(1));
  size_t wordEnd = 0;
  while (wordEnd < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[wordEnd])) || rest[wordEnd] == '_'))
    ++wordEnd;
  std::string_view word = rest.substr(0, wordEnd);
  if (word == "if" || word == "ifdef" || word == "ifndef") ++scan.conditionals;
  if (word == "endif") --scan.conditionals;
  if (word == "include" || word == "import" || word == "include_next") {
    std::string_view target = trimmedFront(rest.substr(wordEnd));
    size_t close = target.find('>');
    if (target.empty() || target[0] != '<' || close == std::string_view::npos) return DirectiveVerdict::Refuse;
    if (!embedded(std::string(target.substr(1, close - 1)))) return DirectiveVerdict::Refuse;
  }
  if (word == "line" || (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])))) {
    unsigned number = 0;
    std::string name;
    if (!SourceIndex::parseLineDirective(std::string(line), number, name)) return DirectiveVerdict::Refuse;
    // `# 1 "file" 1 3`: flags (entering a system header) that a plain continuation would lose.
    size_t quote = line.find('"');
    if (quote != std::string_view::npos) {
      size_t closing = line.find('"', quote + 1);
      if (closing == std::string_view::npos || !trimmedFront(line.substr(closing + 1)).empty())
        return DirectiveVerdict::Refuse;
    }
    if (!name.empty()) presumedName = name;
    nextPresumedLine = number;
  }
  return DirectiveVerdict::Follow;
}

}  // namespace

std::optional<SourcePrefix> precompilablePrefix(const std::string& source,
                                                const std::function<bool(const std::string&)>& embedded) {
  Scan scan;
  std::optional<SourcePrefix> boundary;  // the last top-level boundary seen
  std::string presumedName;
  unsigned presumedLine = 1;
  unsigned lineIndex = 0;
  for (size_t start = 0; start < source.size(); ++lineIndex) {
    size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    std::string_view line(source.data() + start, end - start);
    if (scan.atTopLevelBoundary()) boundary = SourcePrefix{start, lineIndex, presumedName, presumedLine};
    bool lineStartsCode = !scan.inBlockComment && !scan.inDirective && !scan.continued;
    if (lineStartsCode && beginsKernel(line)) {
      if (!boundary || boundary->bytes < kMinimumPrecompiledPrefix) return std::nullopt;
      return boundary;
    }
    unsigned nextPresumedLine = presumedLine + 1;
    bool startsDirective = lineStartsCode && startsWith(trimmedFront(line), "#");
    if (startsDirective &&
        directive(line, scan, embedded, presumedName, nextPresumedLine) == DirectiveVerdict::Refuse)
      return std::nullopt;
    bool inDirective = startsDirective || scan.inDirective;
    scan.scanCharacters(line, !inDirective);
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ' || trimmed.back() == '\t'))
      trimmed.remove_suffix(1);
    scan.continued = !trimmed.empty() && trimmed.back() == '\\';
    scan.inDirective = inDirective && scan.continued;
    if (inDirective && !scan.continued) scan.lastSignificant = '#';
    presumedLine = nextPresumedLine;
    start = end + 1;
  }
  return std::nullopt;  // no kernel: nothing to share a prefix with
}

}  // namespace mslsim
