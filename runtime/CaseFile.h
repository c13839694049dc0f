// A kernel test case as data (case.json), read whole and checked before anything is compiled or
// run: runCase (SuiteCase.h) runs what it says, tests/fuzz/fuzz_case_json fuzzes the reading.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <mslsim/types.h>

namespace mslsim {

struct CaseSpec {
  std::string path;       // of the case.json
  std::string directory;  // where its files are (the case file's directory)
  std::string kernel;
  std::string source;     // the .metal file, a path relative to `directory`
  bool threadgroupsMode = false;  // "dispatch": "threadgroups" (else "threads")
  Size3 grid{1, 1, 1}, threadgroup{1, 1, 1};
  std::string checks = "bounds,sync";
  double timeoutSeconds = 60;
  std::map<unsigned, std::string> buffers;  // index -> buffer spec, as `--buffer I=SPEC`
  std::map<unsigned, uint64_t> threadgroupMemory;  // index -> bytes
  // The planted-bug corpus: the findings the case's own checks must report, exactly.
  struct ExpectedFinding {
    std::string severity = "error";
    std::string kind;
    std::vector<unsigned> lines;       // sorted
    std::optional<uint64_t> count;     // occurrences folded into it (in the in-order schedule)
  };
  std::optional<std::vector<ExpectedFinding>> findings;  // none: findings are not compared
  // The final contents some buffers must have: a buffer spec (usually a .npy computed by an
  // independent reference), compared within rtol/atol.
  struct Expectation {
    unsigned index;
    std::string key;   // as written ("0")
    std::string file;
    double rtol = 0, atol = 0;
  };
  std::vector<Expectation> expect;
};

// Reads `caseJson` (throws Error naming the file and the field: unknown fields with the nearest
// known one, wrong types, out-of-range numbers, an expected buffer that is not bound).
CaseSpec readCase(const std::string& caseJson);

}  // namespace mslsim
