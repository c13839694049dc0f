// Kernel test cases as data: a case.json names the kernel, its dispatch, its buffers (CLI buffer
// specs) and the expected final contents of some buffers (.npy files computed by an independent
// reference such as numpy), with tolerances. Used by `mslsim suite`, the testsuite and examples/.
#pragma once

#include <string>
#include <vector>

namespace mslsim {

struct CaseOutcome {
  std::string name;       // the case directory's name
  std::string kernel;
  std::string dispatch;   // "grid 1000x1x1, threadgroup 256x1x1"
  bool passed = false;
  bool ran = false;       // the kernel was dispatched (else the case was refused: I/O, JSON, binding, compile)
  std::string check;      // "3 outputs match (max abs err 1.2e-07)" or why not
  std::vector<std::string> details;  // mismatches, findings, errors
  double compileMs = 0, runMs = 0;
};

// Runs the case described by `caseJson`; data files are looked up in `dataDir` (default: the
// directory of the case file). Never throws: every failure is reported in the outcome.
// `checks`, when not empty, replaces the case's own "checks" (e.g. "all" to look for false positives);
// the case's expected "findings" are then not compared: its outputs must match, with no error;
// `workers` as DispatchOptions::workers (0: mslsim's default).
CaseOutcome runCase(const std::string& caseJson, const std::string& dataDir = "",
                    const std::string& checks = "", const std::string& schedule = "in-order", unsigned workers = 0);

}  // namespace mslsim
