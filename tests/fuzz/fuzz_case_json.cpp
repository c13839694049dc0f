// case.json, read by readCase (runtime/CaseFile.cpp) as `mslsim suite` reads it before it compiles
// the kernel and loads data, then its "checks" parsed as runCase parses them. Buffer specs and
// .npy files have targets of their own (fuzz_buffer_spec, fuzz_npy), so the specs' text is read
// here but not parsed. An Error is the expected answer to a bad case and must name the file
// (JsonFields' promise; "--check" lists name the flag); anything else, or an Error that names
// neither, is a finding.
#include <cstdint>
#include <string>
#include <vector>

#include "CaseFile.h"
#include "FuzzSupport.h"
#include "UserInput.h"

using mslsim::Error;

namespace {

void readCase(const std::string& caseJson) {
  mslsim::CaseSpec spec = mslsim::readCase(caseJson);
  mslsim::CheckSet checks = mslsim::parseCheckList(spec.checks);
  for (auto& e : spec.expect)
    if (!spec.buffers.count(e.index)) mslsim_fuzz::invariantFailed("an expected buffer that is not bound");
  volatile uint64_t sink = spec.grid[0] + spec.threadgroup[0] + spec.buffers.size() + spec.kernel.size() +
                           spec.source.size() + uint64_t(checks.needsInstrumentation()) +
                           uint64_t(spec.timeoutSeconds == 0);
  (void)sink;
}

bool startsWith(const std::string& s, const std::string& head) { return s.compare(0, head.size(), head) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = mslsim_fuzz::writeInput("case.json", data, size);
  try {
    readCase(path);
  } catch (const Error& e) {
    if (!startsWith(e.what(), path) && !startsWith(e.what(), "--check"))
      mslsim_fuzz::invariantFailed((std::string("error names neither the file nor the flag: ") + e.what()).c_str());
  }
  return 0;
}
