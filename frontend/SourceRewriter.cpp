#include "SourceRewriter.h"

#include <algorithm>
#include <cctype>

#include <mslsim/kernel_info.h>

namespace mslsim {

void ColumnMap::addEdit(unsigned line, unsigned outStart, unsigned outLength, unsigned inStart,
                        unsigned inLength) {
  edits_.push_back({line, outStart, outLength, inStart, inLength});
}

void ColumnMap::insertEdit(unsigned line, unsigned outStart, unsigned outLength, unsigned inStart,
                           unsigned inLength) {
  auto it = edits_.begin();
  while (it != edits_.end() && (it->line < line || (it->line == line && it->outStart < outStart))) ++it;
  for (auto later = it; later != edits_.end() && later->line == line; ++later) later->outStart += outLength;
  edits_.insert(it, {line, outStart, outLength, inStart, inLength});
}

unsigned ColumnMap::originalColumn(unsigned line, unsigned outputColumn) const {
  // Columns before the first edit are unchanged; after an edit they shift by the edit's growth;
  // inside a replacement they map to the start of the replaced text.
  long shift = 0;
  auto it = std::lower_bound(edits_.begin(), edits_.end(), line,
                             [](const Edit& e, unsigned l) { return e.line < l; });
  for (; it != edits_.end() && it->line == line; ++it) {
    if (outputColumn < it->outStart) break;
    if (outputColumn < it->outStart + it->outLength) return it->inStart;
    shift = long(it->inStart + it->inLength) - long(it->outStart + it->outLength);
  }
  long column = long(outputColumn) + shift;
  return column < 1 ? 1 : unsigned(column);
}

namespace {

bool isIdentStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

// C++ attributes Clang understands itself; they stay in [[...]] form.
bool isStandardAttribute(const std::string& name) {
  static const char* const kStandard[] = {"maybe_unused", "likely",   "unlikely",
                                          "fallthrough",  "nodiscard", "noreturn",
                                          "deprecated",   "carries_dependency", "no_unique_address"};
  if (name.find("::") != std::string::npos) return true;  // gnu::, clang::
  for (auto* s : kStandard)
    if (name == s) return true;
  return false;
}

// MSL attributes whose meaning mslsim implements; anything else is reported and dropped.
bool isSupportedMslAttribute(const std::string& name) {
  static const char* const kSupported[] = {"buffer", "threadgroup", "kernel", "host_name",
                                           "max_total_threads_per_threadgroup",
                                           "function_constant"};
  for (auto* s : kSupported)
    if (name == s) return true;
  BuiltinValue ignored;
  return parseBuiltinName(name, ignored);
}

class Rewriter {
 public:
  explicit Rewriter(const std::string& src) : src_(src) {}

  RewrittenSource run() {
    out_.text.reserve(src_.size() + src_.size() / 8);
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '/' && peek(1) == '/') {
        copyUntilEndOfLine();
      } else if (c == '/' && peek(1) == '*') {
        copyBlockComment();
      } else if (c == '"' || c == '\'') {
        copyQuoted(c);
      } else if (c == 'R' && peek(1) == '"' && (pos_ == 0 || !isIdentChar(src_[pos_ - 1]))) {
        copyRawString();
      } else if (c == '[' && peek(1) == '[') {
        rewriteAttributeList();
      } else if (std::isdigit((unsigned char)c) ||
                 (c == '.' && std::isdigit((unsigned char)peek(1)))) {
        if (pos_ > 0 && isIdentChar(src_[pos_ - 1]))
          copyChar();
        else
          rewriteNumber();
      } else if (isIdentStart(c)) {
        while (pos_ < src_.size() && isIdentChar(src_[pos_])) copyChar();
      } else {
        copyChar();
      }
    }
    return std::move(out_);
  }

 private:
  char peek(size_t ahead) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  void copyChar() {
    char c = src_[pos_++];
    emit(c);
    if (c == '\n') {
      ++inLine_;
      inCol_ = 1;
    } else {
      ++inCol_;
    }
  }

  void emit(char c) {
    out_.text.push_back(c);
    if (c == '\n') {
      ++outLine_;
      outCol_ = 1;
    } else {
      ++outCol_;
    }
  }

  void copyUntilEndOfLine() {
    while (pos_ < src_.size() && src_[pos_] != '\n') {
      // A backslash-newline continues a // comment onto the next line.
      if (src_[pos_] == '\\' && peek(1) == '\n') copyChar();
      copyChar();
    }
  }

  void copyBlockComment() {
    copyChar();
    copyChar();
    while (pos_ < src_.size() && !(src_[pos_] == '*' && peek(1) == '/')) copyChar();
    if (pos_ < src_.size()) {
      copyChar();
      copyChar();
    }
  }

  void copyQuoted(char quote) {
    copyChar();
    while (pos_ < src_.size() && src_[pos_] != quote && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) copyChar();
      copyChar();
    }
    if (pos_ < src_.size() && src_[pos_] == quote) copyChar();
  }

  void copyRawString() {
    size_t open = src_.find('(', pos_);
    if (open == std::string::npos) {
      copyChar();
      return;
    }
    std::string terminator = ")" + src_.substr(pos_ + 2, open - pos_ - 2) + "\"";
    size_t end = src_.find(terminator, open);
    end = end == std::string::npos ? src_.size() : end + terminator.size();
    while (pos_ < end) copyChar();
  }

  // Replaces src_[pos_, pos_+length) with `replacement`, keeping line structure: newlines inside
  // the replaced text are re-emitted after the replacement.
  void replace(size_t length, const std::string& replacement) {
    unsigned startLine = inLine_, startInCol = inCol_, startOutCol = outCol_;
    unsigned newlines = 0;
    for (size_t i = 0; i < length; ++i) newlines += src_[pos_ + i] == '\n';
    for (char c : replacement) emit(c);
    if (newlines == 0)
      out_.columns.addEdit(startLine, startOutCol, unsigned(replacement.size()), startInCol,
                           unsigned(length));
    // The replaced text's line breaks follow the replacement, so line numbers stay the same. A
    // break that was a backslash continuation (an attribute list in a macro) stays one.
    std::string breaks;
    for (size_t i = 0; i < length; ++i) {
      if (src_[pos_] == '\n') {
        if (i > 0 && src_[pos_ - 1] == '\\') breaks += '\\';
        breaks += '\n';
        ++inLine_;
        inCol_ = 1;
      } else {
        ++inCol_;
      }
      ++pos_;
    }
    for (char c : breaks) emit(c);
  }

  void warn(unsigned line, unsigned column, std::string message) {
    out_.warnings.push_back({line, column, std::move(message)});
  }

  void rewriteNumber() {
    size_t start = pos_, p = pos_;
    while (p < src_.size()) {
      char c = src_[p];
      if ((c == '+' || c == '-') && p > start &&
          (src_[p - 1] == 'e' || src_[p - 1] == 'E' || src_[p - 1] == 'p' ||
           src_[p - 1] == 'P')) {
        ++p;
      } else if (isIdentChar(c) || c == '.' || (c == '\'' && p + 1 < src_.size() &&
                                                 isIdentChar(src_[p + 1]))) {
        ++p;
      } else {
        break;
      }
    }
    std::string number = src_.substr(start, p - start);
    bool hex = number.size() > 1 && number[0] == '0' && (number[1] == 'x' || number[1] == 'X');
    std::string lower = number;
    for (auto& ch : lower) ch = char(std::tolower((unsigned char)ch));
    if (!hex && lower.size() > 2 && lower.compare(lower.size() - 2, 2, "bf") == 0) {
      std::string value = number.substr(0, number.size() - 2);
      bool isFloat = value.find_first_of(".eE") != std::string::npos;
      replace(number.size(), "::metal::bfloat(" + value + (isFloat ? "f" : ".0f") + ")");
    } else if (!hex && lower.size() > 1 && lower.back() == 'h') {
      std::string value = number.substr(0, number.size() - 1);
      bool isFloat = value.find_first_of(".eE") != std::string::npos;
      replace(number.size(), value + (isFloat ? "f16" : ".0f16"));
    } else {
      while (pos_ < p) copyChar();
    }
  }

  struct ParsedAttribute {
    std::string name;
    std::string args;  // including parentheses, or empty
    bool hasArgs = false;
  };

  // At "[[": parses the list up to "]]" and emits the GNU form.
  void rewriteAttributeList() {
    size_t p = pos_ + 2;
    std::vector<ParsedAttribute> attrs;
    auto skipSpace = [&] {
      while (p < src_.size() && std::isspace((unsigned char)src_[p])) ++p;
    };
    bool ok = true;
    for (;;) {
      skipSpace();
      if (p + 1 < src_.size() && src_[p] == ']' && src_[p + 1] == ']') break;
      ParsedAttribute a;
      while (p < src_.size() && (isIdentChar(src_[p]) || src_[p] == ':')) a.name += src_[p++];
      if (a.name.empty()) {
        ok = false;
        break;
      }
      skipSpace();
      if (p < src_.size() && src_[p] == '(') {
        size_t argStart = p;
        int depth = 0;
        while (p < src_.size()) {
          char c = src_[p];
          if (c == '"' || c == '\'') {
            char q = c;
            ++p;
            while (p < src_.size() && src_[p] != q) p += src_[p] == '\\' ? 2 : 1;
          } else if (c == '(') {
            ++depth;
          } else if (c == ')') {
            if (--depth == 0) {
              ++p;
              break;
            }
          }
          ++p;
        }
        // Line breaks inside the arguments (backslash-continued or not) are re-emitted after the
        // replacement by replace(); here they become spaces.
        for (size_t i = argStart; i < p; ++i) {
          if (src_[i] == '\\' && i + 1 < p && src_[i + 1] == '\n') continue;
          a.args += src_[i] == '\n' ? ' ' : src_[i];
        }
        a.hasArgs = true;
      }
      attrs.push_back(a);
      skipSpace();
      if (p < src_.size() && src_[p] == ',') {
        ++p;
        continue;
      }
      if (p + 1 < src_.size() && src_[p] == ']' && src_[p + 1] == ']') break;
      ok = false;
      break;
    }
    if (!ok || p + 1 >= src_.size()) {  // not an attribute list we understand: leave it to Clang
      copyChar();
      return;
    }
    size_t end = p + 2;

    std::string standard, gnu, functionConstant;
    unsigned line = inLine_, column = inCol_;
    for (auto& a : attrs) {
      if (isStandardAttribute(a.name)) {
        standard += (standard.empty() ? "" : ", ") + a.name + a.args;
        continue;
      }
      if (!isSupportedMslAttribute(a.name)) {
        warn(line, column, "attribute '" + a.name + "' is not supported by mslsim and is ignored");
        continue;
      }
      if (a.name == "function_constant") {
        std::string index = a.args.size() > 2 ? a.args.substr(1, a.args.size() - 2) : "";
        bool numeric = !index.empty() && index.find_first_not_of("0123456789 ") == std::string::npos;
        if (numeric) {
          functionConstant = index;
        } else {
          // An argument that exists only when a function constant is true: mslsim binds it always.
          warn(line, column, "argument enabled by function constant '" + index +
                                 "' is treated as always present by mslsim");
        }
        continue;
      }
      BuiltinValue builtin;
      std::string spelled = parseBuiltinName(a.name, builtin)
                                ? "msl_builtin(\"" + a.name + "\")"
                                : "msl_" + a.name + a.args;
      gnu += (gnu.empty() ? "" : ", ") + spelled;
    }
    std::string replacement;
    if (!standard.empty()) replacement += "[[" + standard + "]]";
    if (!gnu.empty()) replacement += (replacement.empty() ? "" : " ") + ("__attribute__((" + gnu + "))");
    if (!functionConstant.empty()) {
      // `constant T name [[function_constant(N)]];` becomes a constexpr variable whose value is
      // the one given at compile time (zero when none is), plus the flag
      // is_function_constant_defined(name) reads (see the prelude).
      std::string name = lastIdentifier();
      if (name.empty()) {
        warn(line, column, "function_constant(" + functionConstant + ") is not on a variable; ignored");
      } else {
        makeDeclarationConstexpr();
        replacement += " = ::metal::__mslsim_fc::value<decltype(" + name + ")>(" + functionConstant +
                       "); static constexpr bool __mslsim_fc_defined_" + name +
                       " = ::metal::__mslsim_fc::defined(" + functionConstant + ")";
      }
    }
    replace(end - pos_, replacement);
  }

  std::string lastIdentifier() const {
    const std::string& t = out_.text;
    size_t e = t.size();
    while (e > 0 && std::isspace((unsigned char)t[e - 1])) --e;
    size_t b = e;
    while (b > 0 && isIdentChar(t[b - 1])) --b;
    return t.substr(b, e - b);
  }

  // Inserts "constexpr " at the start of the declaration being rewritten (after the last ';', '{',
  // '}' or newline of the output so far). Only on the current line, where no later edit exists.
  void makeDeclarationConstexpr() {
    std::string& t = out_.text;
    size_t start = t.find_last_of(";{}\n");
    start = start == std::string::npos ? 0 : start + 1;
    while (start < t.size() && (t[start] == ' ' || t[start] == '\t')) ++start;
    size_t lineStart = t.rfind('\n');
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    if (start < lineStart) return;
    const std::string word = "constexpr ";
    t.insert(start, word);
    unsigned column = unsigned(start - lineStart) + 1;
    out_.columns.insertEdit(outLine_, column, unsigned(word.size()), originalColumnAt(column), 0);
    outCol_ += unsigned(word.size());
  }

  unsigned originalColumnAt(unsigned outputColumn) const { return out_.columns.originalColumn(outLine_, outputColumn); }

  const std::string& src_;
  size_t pos_ = 0;
  unsigned inLine_ = 1, inCol_ = 1, outLine_ = 1, outCol_ = 1;
  RewrittenSource out_;
};

}  // namespace

RewrittenSource rewriteMslSource(const std::string& source) { return Rewriter(source).run(); }

}  // namespace mslsim
