// Machine-readable checker reports: mslsim's JSON schema (docs/checks.md) and SARIF 2.1.0.
#pragma once

#include <string>
#include <vector>

#include "Executor.h"

namespace mslsim {

std::string findingsToJson(const std::string& kernel, const std::vector<Finding>& findings);
std::string findingsToSarif(const std::string& kernel, const std::vector<Finding>& findings);

}  // namespace mslsim
