#include "SourceRewriter.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

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
        if (src_.compare(pos_, 8, "constant") == 0 && !isIdentChar(peek(8)) && startsProgramScopeDeclaration()) {
          // A program-scope `constant` variable is read-only and, when its initialiser is a
          // constant expression, usable in one (`[[buffer(index)]]`, array bounds): it becomes a
          // C++ `const` (the address-space word itself is erased by the prelude).
          replace(8, "const");
          continue;
        }
        while (pos_ < src_.size() && isIdentChar(src_[pos_])) copyChar();
      } else if (c == '(') {
        if (!inDirective_) ++parenDepth_;
        copyChar();
      } else if (c == '#' && atLineStart()) {
        directive();
      } else if (c == '{') {
        openScope();
      } else if (c == '}') {
        copyChar();
        if (scopes_.size() > 1) scopes_.pop_back();
      } else if (c == ')') {
        if (parenDepth_ > 0 && !inDirective_) --parenDepth_;
        copyChar();
        if (!scopes_.back().inFunction && !inDirective_) dropAddressSpaceDuplicate();
      } else {
        if (c == '\n') inDirective_ = inDirective_ && pos_ > 0 && src_[pos_ - 1] == '\\';
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
        // Outside parentheses and functions it declares a program-scope constant whose index is
        // an integer constant expression (ggml: `FC_UNARY + 0`); in a parameter list it names the
        // bool constant that enables the argument.
        bool programScope = parenDepth_ == 0 && !scopes_.back().inFunction && !inDirective_;
        if (programScope && !index.empty()) {
          functionConstant = "(" + index + ")";
        } else {
          // An argument that exists only when the function constant `index` is true: the front
          // end records the constant's name and value (parenthesised: an expression to Clang).
          gnu += (gnu.empty() ? "" : ", ") + ("msl_enabled_by((" + index + "))");
        }
        continue;
      }
      BuiltinValue builtin;
      std::string args = a.args;
      // Clang parses a GNU attribute argument that starts with an identifier as an identifier,
      // not an expression; `[[buffer(index_fc)]]` names a constant, so it is parenthesised.
      if (args.size() > 2 && isIdentStart(args[1]) && a.name != "host_name")
        args = "(" + args + ")";
      std::string spelled = parseBuiltinName(a.name, builtin)
                                ? "msl_builtin(\"" + a.name + "\")"
                                : "msl_" + a.name + args;
      gnu += (gnu.empty() ? "" : ", ") + spelled;
    }
    if (!functionConstant.empty())
      gnu += (gnu.empty() ? "" : ", ") + ("msl_function_constant(" + functionConstant + ")");
    std::string replacement;
    // `tgpig[[threadgroup_position_in_grid]]`, glued to the name as ggml writes it, must not become
    // one identifier `tgpig__attribute__`.
    if (!out_.text.empty() && isIdentChar(out_.text.back())) replacement += " ";
    if (!standard.empty()) replacement += "[[" + standard + "]]";
    if (!gnu.empty()) replacement += (standard.empty() ? "" : " ") + ("__attribute__((" + gnu + "))");
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

  // ----------------------------------------------------------- address-space overloads
  // MSL lets overloads differ only by address space: member functions qualified `) const thread`,
  // `) const device`, `) threadgroup` (MLX's complex64_t and steel loaders) and functions whose
  // parameters differ only by the address space of a pointer. With address spaces erased these are
  // redefinitions in C++, so a definition that repeats an earlier one of the same scope once the
  // address-space words are removed is blanked out (replaced by spaces, line breaks kept): the
  // first one is used for every address space, as memory is one flat space here. Only definitions
  // outside function bodies, in the same preprocessor branch, and where an address-space word
  // makes the difference are dropped; everything else is left to Clang.
  struct Scope {
    bool inFunction = false;
    unsigned id = 0;
  };

  bool atLineStart() const {
    const std::string& t = out_.text;
    for (size_t i = t.size(); i > 0; --i) {
      if (t[i - 1] == '\n') return true;
      if (t[i - 1] != ' ' && t[i - 1] != '\t') return false;
    }
    return true;
  }

  // True where a declaration starts outside functions and parentheses: after ';', '{' or '}', or
  // first on its line.
  bool startsProgramScopeDeclaration() const {
    if (scopes_.back().inFunction || inDirective_ || parenDepth_ > 0) return false;
    const std::string& t = out_.text;
    size_t e = t.size();
    while (e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t')) --e;
    if (e == 0 || t[e - 1] == '\n') return true;
    return t[e - 1] == ';' || t[e - 1] == '{' || t[e - 1] == '}';
  }

  // A preprocessor line: conditionals change the branch the following definitions belong to;
  // #define bodies are never examined.
  void directive() {
    size_t p = pos_ + 1;
    while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t')) ++p;
    size_t b = p;
    while (p < src_.size() && isIdentChar(src_[p])) ++p;
    std::string word = src_.substr(b, p - b);
    if (word == "if" || word == "ifdef" || word == "ifndef") {
      ppPath_.push_back(++ppBranches_);
    } else if (word == "elif" || word == "else") {
      if (!ppPath_.empty()) ppPath_.back() = ++ppBranches_;
    } else if (word == "endif") {
      if (!ppPath_.empty()) ppPath_.pop_back();
    }
    inDirective_ = true;
    copyChar();
  }

  void openScope() {
    // The body of a function (or lambda) follows `)`, a qualifier or a constructor's initialiser
    // list; other braces (classes, namespaces, initialisers) keep the enclosing kind.
    if (!pendingBody_ && dropAddressSpaceDuplicateClass()) return;
    bool body = false;
    if (pendingBody_) {
      size_t e = out_.text.size();
      while (e > 0 && std::isspace((unsigned char)out_.text[e - 1])) --e;
      char prev = e ? out_.text[e - 1] : '\0';
      body = prev == ')' || prev == '}' || (isIdentChar(prev) && !afterInitialiserName(e));
      if (body) pendingBody_ = false;
    }
    Scope s;
    s.inFunction = scopes_.back().inFunction || body;
    s.id = ++scopeCount_;
    copyChar();
    scopes_.push_back(s);
  }

  // In `: a{1} {`, the brace after `a` initialises a member; a body follows `)`, `}` or a qualifier.
  bool afterInitialiserName(size_t e) const {
    size_t b = e;
    while (b > 0 && isIdentChar(out_.text[b - 1])) --b;
    static const char* const kQualifiers[] = {"const", "volatile", "mutable", "noexcept", "override",
                                              "final", "thread", "device", "threadgroup", "constant"};
    std::string word = out_.text.substr(b, e - b);
    for (auto* q : kQualifiers)
      if (word == q) return false;
    return true;
  }

  static bool isAddressSpaceWord(const std::string& w) {
    return w == "device" || w == "threadgroup" || w == "constant" || w == "thread";
  }

  // Called after a ')' outside function bodies. If a definition starts here (qualifiers, then a
  // body, a constructor's initialiser list or `= default`), compares it with the earlier ones.
  void dropAddressSpaceDuplicate() {
    size_t p = pos_;
    std::string qualifiers;
    bool qualifierSpace = false;
    for (;;) {
      while (p < src_.size() && (std::isspace((unsigned char)src_[p]) ||
                                 (src_[p] == '\\' && p + 1 < src_.size() && src_[p + 1] == '\n')))
        ++p;
      size_t b = p;
      while (p < src_.size() && isIdentChar(src_[p])) ++p;
      std::string w = src_.substr(b, p - b);
      if (w.empty()) break;
      if (w == "const" || w == "volatile") {
        qualifiers += " " + w;
      } else if (isAddressSpaceWord(w)) {
        qualifierSpace = true;
      } else {
        return;  // `) override`, `) -> T`, a macro: not a form handled here
      }
    }
    if (p >= src_.size()) return;
    char c = src_[p];
    bool definition = c == '{' || (c == ':' && !(p + 1 < src_.size() && src_[p + 1] == ':'));
    if (c == '=') {
      size_t q = p + 1;
      while (q < src_.size() && std::isspace((unsigned char)src_[q])) ++q;
      definition = src_.compare(q, 7, "default") == 0 || src_.compare(q, 6, "delete") == 0;
    }
    if (!definition) return;
    pendingBody_ = true;

    size_t start;
    bool hasSpace = qualifierSpace;
    std::string key;
    if (!declarationKey(start, key, hasSpace)) return;
    if (key.empty() || key[0] == '[') return;  // a lambda
    for (const char* control : {"if(", "for(", "while(", "switch(", "else", "do", "return", "catch("})
      if (key.compare(0, std::strlen(control), control) == 0) return;
    key += "|" + qualifiers;
    std::string scoped = std::to_string(scopes_.back().id);
    for (unsigned b : ppPath_) scoped += "." + std::to_string(b);
    scoped += "|" + key;
    auto [it, inserted] = definitions_.emplace(scoped, hasSpace);
    if (inserted || !(hasSpace || it->second)) return;

    // A repeat: blank what was emitted of it and skip the rest of its definition.
    pendingBody_ = false;
    blankRepeat(start, definitionEnd(p));
  }

  // Blanks the output from `start` and the source up to `end`, keeping line breaks (and the
  // backslashes that continue macro lines).
  void blankRepeat(size_t start, size_t end) {
    std::string& out = out_.text;
    for (size_t i = start; i < out.size(); ++i)
      if (out[i] != '\n' && !(out[i] == '\\' && i + 1 < out.size() && out[i + 1] == '\n')) out[i] = ' ';
    while (pos_ < end) {
      char ch = src_[pos_];
      if (ch == '\n' || (ch == '\\' && peek(1) == '\n')) {
        copyChar();
      } else {
        emit(' ');
        ++pos_;
        ++inCol_;
      }
    }
  }

  // A class (or partial specialisation) that repeats an earlier one of the same scope once
  // address-space words are removed: MLX's `struct pointer_element<device T*>` next to
  // `<thread T*>`, `<constant T*>`, `<threadgroup T*>`. Called at its '{'; true if it was blanked.
  bool dropAddressSpaceDuplicateClass() {
    if (scopes_.back().inFunction || inDirective_ || parenDepth_ > 0) return false;
    size_t start;
    bool hasSpace = false;
    std::string key;
    if (!declarationKey(start, key, hasSpace) || !hasSpace) return false;
    bool isClass = false;
    for (const char* word : {"struct", "class", "union"}) {
      size_t at = key.find(word);
      while (at != std::string::npos && !isClass) {
        size_t e = at + std::strlen(word);
        isClass = (at == 0 || !isIdentChar(key[at - 1])) && (e >= key.size() || !isIdentChar(key[e]));
        at = key.find(word, at + 1);
      }
    }
    if (!isClass || key.find('(') != std::string::npos) return false;  // no functions, no initialisers
    std::string scoped = std::to_string(scopes_.back().id);
    for (unsigned b : ppPath_) scoped += "." + std::to_string(b);
    scoped += "|" + key + "|class";
    if (definitions_.emplace(scoped, true).second) return false;
    // Skip the body and the ';' after it.
    size_t p = closingBrace(pos_);
    size_t end = p < src_.size() ? p + 1 : p;
    size_t q = end;
    while (q < src_.size() && (src_[q] == ' ' || src_[q] == '\t')) ++q;
    if (q < src_.size() && src_[q] == ';') end = q + 1;
    blankRepeat(start, end);
    return true;
  }

  // The declaration before the current position, from the end of the previous one (';', '{', '}'
  // or a preprocessor line), with comments, whitespace and address-space words removed; hasSpace
  // is set if it had address-space words. False if there is nothing to compare.
  bool declarationKey(size_t& start, std::string& key, bool& hasSpace) {
    const std::string& t = out_.text;
    start = t.find_last_of(";{}");
    start = start == std::string::npos ? 0 : start + 1;
    for (size_t nl = t.find('\n', start); nl != std::string::npos; nl = t.find('\n', nl + 1)) {
      size_t q = nl + 1;
      while (q < t.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
      if (q < t.size() && t[q] == '#') {
        size_t end = q;
        while (end < t.size() && !(t[end] == '\n' && t[end - 1] != '\\')) ++end;
        start = end;
        nl = end < t.size() ? end : t.size() - 1;
        if (end >= t.size()) return false;
      }
    }
    bool space = false;
    for (size_t i = start; i < t.size(); ++i) {
      char ch = t[i];
      if (ch == '/' && i + 1 < t.size() && t[i + 1] == '/') {
        while (i < t.size() && t[i] != '\n') ++i;
        space = true;
        continue;
      }
      if (ch == '/' && i + 1 < t.size() && t[i + 1] == '*') {
        size_t close = t.find("*/", i + 2);
        if (close == std::string::npos) return false;
        i = close + 1;
        space = true;
        continue;
      }
      if (isIdentStart(ch)) {
        size_t b = i;
        while (i < t.size() && isIdentChar(t[i])) ++i;
        std::string w = t.substr(b, i - b);
        --i;
        if (isAddressSpaceWord(w)) {
          hasSpace = true;
          space = true;
          continue;
        }
        if (key.empty() && (w == "public" || w == "private" || w == "protected")) {
          size_t q = i + 1;
          while (q < t.size() && std::isspace((unsigned char)t[q])) ++q;
          if (q < t.size() && t[q] == ':' && !(q + 1 < t.size() && t[q + 1] == ':')) {
            i = q;
            continue;
          }
        }
        if (space && !key.empty() && isIdentChar(key.back())) key += ' ';
        key += w;
        space = false;
        continue;
      }
      if (std::isspace((unsigned char)ch) || ch == '\\') {
        space = true;
        continue;
      }
      key += ch;
      space = false;
    }
    return !key.empty();
  }

  // The '}' that closes the first '{' at or after p, skipping comments and literals; the end of the
  // source if there is none.
  size_t closingBrace(size_t p) const {
    int depth = 0;
    for (; p < src_.size(); ++p) {
      size_t skipped = skipLiteral(p);
      if (skipped != p) {
        p = skipped - 1;
        continue;
      }
      if (src_[p] == '{') ++depth;
      if (src_[p] == '}' && --depth == 0) return p;
    }
    return src_.size();
  }

  // Skips a comment or a quoted literal starting at p; returns the position after it (p if none).
  size_t skipLiteral(size_t p) const {
    if (src_.compare(p, 2, "//") == 0) {
      while (p < src_.size() && src_[p] != '\n') ++p;
      return p;
    }
    if (src_.compare(p, 2, "/*") == 0) {
      size_t close = src_.find("*/", p + 2);
      return close == std::string::npos ? src_.size() : close + 2;
    }
    if (src_[p] == '"' || src_[p] == '\'') {
      char q = src_[p++];
      while (p < src_.size() && src_[p] != q && src_[p] != '\n') p += src_[p] == '\\' ? 2 : 1;
      return p < src_.size() ? p + 1 : p;
    }
    return p;
  }

  // End (one past the closing brace or ';') of a definition whose body, initialiser list or
  // `= default` starts at p.
  size_t definitionEnd(size_t p) const {
    if (src_[p] == '=') {
      size_t semi = src_.find(';', p);
      return semi == std::string::npos ? src_.size() : semi + 1;
    }
    // Find the body's '{': after `)`/`}` (or directly), not a member's brace initialiser.
    int paren = 0;
    char prev = ')';
    while (p < src_.size()) {
      size_t skipped = skipLiteral(p);
      if (skipped != p) {
        p = skipped;
        continue;
      }
      char c = src_[p];
      if (c == '(') ++paren;
      if (c == ')') --paren;
      if (c == '{' && paren == 0) {
        if (prev == ')' || prev == '}' || prev == ':') break;
        // a brace initialiser: skip it
        p = closingBrace(p);
        prev = '}';
        ++p;
        continue;
      }
      if (!std::isspace((unsigned char)c)) prev = c;
      ++p;
    }
    size_t close = closingBrace(p);
    return close < src_.size() ? close + 1 : close;
  }

  const std::string& src_;
  size_t pos_ = 0;
  unsigned inLine_ = 1, inCol_ = 1, outLine_ = 1, outCol_ = 1;
  RewrittenSource out_;
  std::vector<Scope> scopes_{Scope{}};
  unsigned scopeCount_ = 0, ppBranches_ = 0;
  std::vector<unsigned> ppPath_;
  bool inDirective_ = false, pendingBody_ = false;
  unsigned parenDepth_ = 0;
  std::map<std::string, bool> definitions_;  // scope|branch|declaration -> had an address space
};

}  // namespace

RewrittenSource rewriteMslSource(const std::string& source) { return Rewriter(source).run(); }

}  // namespace mslsim
