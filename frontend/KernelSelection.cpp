#include "KernelSelection.h"

#include <optional>
#include <string_view>

namespace mslsim {
namespace {

size_t skipSpaces(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

bool takeWord(std::string_view text, size_t& at, std::string_view word) {
  at = skipSpaces(text, at);
  if (text.substr(at, word.size()) != word) return false;
  at += word.size();
  return true;
}

// The host name of `template [[host_name("name")]] ...` at the start of `line`.
std::optional<std::string> instantiatedHostName(std::string_view line) {
  size_t at = 0;
  if (!takeWord(line, at, "template") || !takeWord(line, at, "[[") || !takeWord(line, at, "host_name") ||
      !takeWord(line, at, "(") || !takeWord(line, at, "\""))
    return std::nullopt;
  size_t end = line.find('"', at);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(at, end - at));
}

}  // namespace

void declareUnwantedInstantiations(const std::string& original, RewrittenSource& rewritten,
                                   const std::set<std::string>& wanted) {
  static constexpr std::string_view kExtern = "extern ";
  std::string out;
  out.reserve(rewritten.text.size() + 1024);
  size_t from = 0, to = 0;  // line starts in the original and in the rewritten text
  bool continued = false;   // the line before ended in a backslash (a macro's body goes on)
  for (unsigned line = 1; to < rewritten.text.size(); ++line) {
    size_t originalEnd = original.find('\n', from);
    if (originalEnd == std::string::npos) originalEnd = original.size();
    size_t rewrittenEnd = rewritten.text.find('\n', to);
    if (rewrittenEnd == std::string::npos) rewrittenEnd = rewritten.text.size();
    std::string_view originalLine(original.data() + from, originalEnd - from);
    std::string_view rewrittenLine(rewritten.text.data() + to, rewrittenEnd - to);
    std::optional<std::string> name = continued ? std::nullopt : instantiatedHostName(originalLine);
    size_t keyword = skipSpaces(rewrittenLine, 0);
    if (name && !wanted.count(*name) && rewrittenLine.substr(keyword, 8) == "template") {
      out.append(rewrittenLine.substr(0, keyword));
      out.append(kExtern);
      out.append(rewrittenLine.substr(keyword));
      unsigned column = unsigned(keyword) + 1;
      rewritten.columns.insertEdit(line, column, unsigned(kExtern.size()), column, 0);
    } else {
      out.append(rewrittenLine);
    }
    if (rewrittenEnd < rewritten.text.size()) out += '\n';
    std::string_view trimmed = originalLine;
    while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ' || trimmed.back() == '\t'))
      trimmed.remove_suffix(1);
    continued = !trimmed.empty() && trimmed.back() == '\\';
    from = originalEnd + 1;
    to = rewrittenEnd + 1;
  }
  rewritten.text = std::move(out);
}

}  // namespace mslsim
