// Suppressions files (include/mslsim/types.h says what a rule is): read, and matched against findings.
#include <fnmatch.h>

#include <fstream>
#include <sstream>

#include <mslsim/types.h>

namespace mslsim {

namespace {
// The white space the fields are split at (std::istream's: a form feed too, which the fuzzer found
// making a rule of no kind).
constexpr const char* kSpace = " \t\r\n\v\f";

std::string trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(kSpace), e = s.find_last_not_of(kSpace);
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A finding's path ends with `file` at a directory boundary ("quantized.h" matches
// "mlx/backend/metal/kernels/quantized.h", not "dequantized.h").
bool pathEndsWith(const std::string& path, const std::string& file) {
  if (path.size() < file.size() || path.compare(path.size() - file.size(), file.size(), file) != 0) return false;
  return path.size() == file.size() || path[path.size() - file.size() - 1] == '/' || file.front() == '/';
}
}  // namespace

std::shared_ptr<Suppressions> Suppressions::fromText(const std::string& text, const std::string& fileName) {
  auto result = std::make_shared<Suppressions>();
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::string rule = trimmed(line.substr(0, line.find('#')));
    if (rule.empty()) continue;
    std::string where = fileName + ":" + std::to_string(number);
    auto bad = [&](const std::string& why) {
      return Error(where + ": " + why + " in suppression '" + rule +
                   "' (expected: KIND [kernel=GLOB] [at=FILE[:LINE]])");
    };
    Rule r;
    r.source = where;
    r.text = rule;
    std::istringstream fields(rule);
    std::string field;
    fields >> r.kind;
    if (r.kind.find('=') != std::string::npos) throw bad("no finding kind first (or *)");
    while (fields >> field) {
      size_t eq = field.find('=');
      std::string key = eq == std::string::npos ? field : field.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : field.substr(eq + 1);
      if (value.empty()) throw bad("'" + field + "' has no value");
      if (key == "kernel" && r.kernel.empty()) {
        r.kernel = value;
      } else if (key == "at" && r.file.empty()) {
        size_t colon = value.rfind(':');
        if (colon != std::string::npos) {
          std::string number = value.substr(colon + 1);
          if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos ||
              number.size() > 9 || std::stoi(number) == 0)
            throw bad("'" + number + "' is not a line number");
          r.line = unsigned(std::stoi(number));
          value = value.substr(0, colon);
        }
        if (value.empty()) throw bad("'at=' has no file");
        r.file = value;
      } else {
        throw bad("'" + field + "' is not kernel=GLOB or at=FILE[:LINE] (each at most once)");
      }
    }
    result->rules_.push_back(std::move(r));
  }
  result->uses_ = std::make_unique<std::atomic<uint64_t>[]>(result->rules_.size());
  return result;
}

std::shared_ptr<Suppressions> Suppressions::fromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open suppressions file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return fromText(text.str(), path);
}

bool Suppressions::suppresses(const std::string& kernel, const Finding& finding) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    const Rule& r = rules_[i];
    if (r.kind != "*" && r.kind != finding.kind) continue;
    if (!r.kernel.empty() && fnmatch(r.kernel.c_str(), kernel.c_str(), 0) != 0) continue;
    if (!r.file.empty()) {
      bool at = false;
      for (const SourcePosition& p : finding.locations)
        at = at || (pathEndsWith(p.file, r.file) && (r.line == 0 || p.line == r.line));
      if (!at) continue;
    }
    uses_[i] += finding.count ? finding.count : 1;
    return true;
  }
  return false;
}

std::vector<std::string> Suppressions::unusedRules() const {
  std::vector<std::string> lines;
  for (size_t i = 0; i < rules_.size(); ++i)
    if (uses_[i] == 0) lines.push_back("unused suppression " + rules_[i].source + ": " + rules_[i].text);
  return lines;
}

std::vector<std::string> Suppressions::summary(const std::string& path) const {
  std::vector<std::string> lines;
  if (uint64_t n = suppressedCount())
    lines.push_back(std::to_string(n) + (n == 1 ? " finding" : " findings") + " suppressed by " + path);
  for (std::string& line : unusedRules()) lines.push_back(std::move(line));
  return lines;
}

uint64_t Suppressions::suppressedCount() const {
  uint64_t n = 0;
  for (size_t i = 0; i < rules_.size(); ++i) n += uses_[i];
  return n;
}

}  // namespace mslsim
