// Machine-readable checker reports: mslsim's JSON schema (docs/checks.md) and SARIF 2.1.0.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "Executor.h"

namespace mslsim {

// "file:line:column" followed by the source line and a caret under the column (when `line` is known).
std::string describePosition(const SourcePosition& where, const std::string& line);

// The text of one finding, as the CLI prints it: kind, message, count, each access (operation,
// thread, lane, threadgroup, position via `describe`), hint.
std::string formatFinding(const Finding& finding,
                          const std::function<std::string(const SourcePosition&)>& describe);

std::string findingsToJson(const std::string& kernel, const std::vector<Finding>& findings);

}  // namespace mslsim
