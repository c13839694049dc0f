// Suppressions files (`--suppressions`, MSLSIM_METAL_SUPPRESSIONS, mslsim.suppressions): the input
// is the file's text, read by Suppressions::fromText; what it accepts is matched against findings
// made from the same bytes. Invariants: a rule it cannot read is an Error naming "<input>:LINE";
// every rule read has a kind and its source; a finding whose kind, kernel and position a rule names
// is suppressed; the counts add up.
#include <mslsim/types.h>

#include <cstdint>
#include <cstdlib>
#include <string>

int main_guard();

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<mslsim::Suppressions> s;
  try {
    s = mslsim::Suppressions::fromText(text, "<input>");
  } catch (const mslsim::Error& e) {
    if (std::string(e.what()).rfind("<input>:", 0) != 0) std::abort();  // the message names the line
    return 0;
  }
  uint64_t expected = 0;
  for (const mslsim::Suppressions::Rule& r : s->rules()) {
    if (r.kind.empty() || r.source.rfind("<input>:", 0) != 0) std::abort();
    // A finding made to match the rule: it must be suppressed (by this rule or an earlier one).
    mslsim::Finding f;
    f.kind = r.kind == "*" ? "out-of-bounds" : r.kind;
    f.count = 2;
    if (!r.file.empty()) f.locations.push_back({"dir/" + r.file, r.line ? r.line : 7, 1});
    bool globbed = r.kernel.find_first_of("*?[\\") != std::string::npos;
    if (!globbed) {
      if (!s->suppresses(r.kernel, f)) std::abort();
      expected += 2;
    }
  }
  if (s->suppressedCount() != expected) std::abort();
  // Nothing matches a finding of a kind no rule names (unless a rule says *).
  bool anyKind = false;
  for (const auto& r : s->rules()) anyKind = anyKind || r.kind == "*";
  mslsim::Finding other;
  other.kind = "\x01no such kind";
  if (!anyKind && s->suppresses("k", other)) std::abort();
  return 0;
}
