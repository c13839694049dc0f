#include "SuiteCase.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Program.h"

namespace mslsim {

namespace {

std::string directoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string baseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Size3 size3(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array() || j[key].empty() || j[key].size() > 3)
    throw Error(std::string("'") + key + "' must be an array of 1 to 3 positive integers");
  Size3 s{1, 1, 1};
  for (size_t i = 0; i < j[key].size(); ++i) s[i] = j[key][i].get<uint32_t>();
  return s;
}

std::string text(Size3 s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}

std::string number(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

}  // namespace

CaseOutcome runCase(const std::string& caseJson, const std::string& dataDirArg, const std::string& checkOverride,
                    const std::string& schedule, unsigned workers) {
  CaseOutcome outcome;
  std::string caseDir = directoryOf(caseJson);
  outcome.name = baseName(caseDir);
  std::string dataDir = dataDirArg.empty() ? caseDir : dataDirArg;
  try {
    std::ifstream in(caseJson);
    if (!in) throw Error(caseJson + ": cannot open file");
    nlohmann::json spec;
    try {
      spec = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(caseJson + ": invalid JSON: " + e.what());
    }
    outcome.kernel = spec.value("kernel", "");
    std::string source = caseDir + "/" + spec.value("source", "kernel.metal");
    Size3 grid = size3(spec, "grid"), threadgroup = size3(spec, "threadgroup");
    std::string mode = spec.value("dispatch", "threads");
    if (mode != "threads" && mode != "threadgroups")
      throw Error(caseJson + ": 'dispatch' must be \"threads\" or \"threadgroups\"");
    outcome.dispatch = (mode == "threads" ? "grid " : "threadgroups ") + text(grid) +
                       ", threadgroup " + text(threadgroup);

    CheckSet checks = parseCheckList(checkOverride.empty() ? spec.value("checks", "bounds,sync") : checkOverride);
    CompileOptions build;
    build.kernels = std::vector<std::string>{outcome.kernel};
    auto program = Program::compileFile(source, build, checks.needsInstrumentation());
    outcome.compileMs = program->compileMilliseconds();
    const ExecutableKernel& kernel = program->kernel(outcome.kernel);
    Launch launch(kernel);
    std::map<unsigned, HostArray> buffers;
    const nlohmann::json none = nlohmann::json::object();
    const nlohmann::json& bufferSpecs = spec.contains("buffers") ? spec["buffers"] : none;
    const nlohmann::json& tgSpecs = spec.contains("threadgroup_memory") ? spec["threadgroup_memory"] : none;
    const nlohmann::json& expectations = spec.contains("expect") ? spec["expect"] : none;
    std::map<unsigned, std::string> specs;
    for (auto& [key, value] : bufferSpecs.items()) specs[unsigned(std::stoul(key))] = value.get<std::string>();
    launch.bindBufferSpecs(specs, buffers, dataDir, caseJson + ": buffer");
    for (auto& [key, value] : tgSpecs.items())
      launch.setThreadgroupMemory(unsigned(std::stoul(key)), value.get<uint64_t>());

    DispatchOptions options;
    options.timeoutSeconds = spec.value("timeout", 60.0);
    options.checks = checks;
    options.schedule = parseSchedule(schedule);
    options.workers = workers;
    DispatchResult result = launch.run(
        mode == "threads" ? DispatchMode::Threads : DispatchMode::Threadgroups, grid, threadgroup, options);
    outcome.runMs = result.milliseconds;
    for (auto& f : result.findings) outcome.details.push_back(program->formatFinding(f));
    // Expected findings (the planted-bug corpus): exactly these kinds at these lines.
    // They are the findings of the case's own checks: under others (`--check`) only the outputs
    // count, and any error fails the case.
    bool findingsChecked = spec.contains("findings") && checkOverride.empty();
    bool findingsMatch = true;
    if (findingsChecked) {
      // An expected finding may also give its count (occurrences folded into it, in the default
      // in-order schedule): then the reported one is compared with its count too.
      std::vector<std::string> expected, got;
      std::set<std::string> counted;
      for (auto& e : spec["findings"]) {
        std::vector<unsigned> lines;
        for (auto& l : e.value("lines", nlohmann::json::array())) lines.push_back(l.get<unsigned>());
        std::sort(lines.begin(), lines.end());
        std::string key = e.value("severity", "error") + " " + e.at("kind").get<std::string>() + " lines";
        for (auto l : lines) key += " " + std::to_string(l);
        if (e.contains("count")) {
          counted.insert(key);
          key += " (" + std::to_string(e["count"].get<uint64_t>()) + " times)";
        }
        expected.push_back(key);
      }
      for (auto& f : result.findings) {
        std::vector<unsigned> lines;
        for (auto& l : f.locations) lines.push_back(l.line);
        std::sort(lines.begin(), lines.end());
        std::string key = std::string(f.severity == Finding::Severity::Error ? "error" : "warning") + " " + f.kind + " lines";
        for (auto l : lines) key += " " + std::to_string(l);
        if (counted.count(key)) key += " (" + std::to_string(f.count) + " times)";
        got.push_back(key);
      }
      std::sort(expected.begin(), expected.end());
      std::sort(got.begin(), got.end());
      if (expected != got) {
        findingsMatch = false;
        std::string e, g;
        for (auto& x : expected) e += (e.empty() ? "" : "; ") + x;
        for (auto& x : got) g += (g.empty() ? "" : "; ") + x;
        outcome.details.push_back("expected findings: " + (e.empty() ? std::string("none") : e));
        outcome.details.push_back("reported findings: " + (g.empty() ? std::string("none") : g));
      }
      if (!expectations.empty() && result.hasErrors() && findingsMatch) {
        // A planted bug whose outputs are also checked: the finding is what counts.
      }
      if (expectations.empty()) {
        outcome.passed = findingsMatch;
        outcome.check = findingsMatch ? std::to_string(result.findings.size()) + " expected finding(s) reported"
                                      : "findings differ from the expected ones";
        return outcome;
      }
    } else if (result.hasErrors()) {
      outcome.check = "the kernel reported errors";
      return outcome;
    }

    double worst = 0;
    unsigned compared = 0;
    bool allMatch = true;
    for (auto& [key, expectation] : expectations.items()) {
      unsigned index = unsigned(std::stoul(key));
      if (!buffers.count(index)) throw Error(caseJson + ": expects buffer " + key + ", which is not bound");
      const HostArray& got = buffers[index];
      HostArray expected = parseBufferSpec(expectation.at("file").get<std::string>(), dataDir);
      if (expected.count() != got.count())
        throw Error(caseJson + ": expected " + key + " has " + std::to_string(expected.count()) +
                         " elements, the buffer " + std::to_string(got.count()));
      double rtol = expectation.value("rtol", 0.0), atol = expectation.value("atol", 0.0);
      unsigned mismatches = 0;
      for (uint64_t i = 0; i < got.count(); ++i) {
        double g = got.valueAt(i), e = expected.valueAt(i);
        bool same = (std::isnan(g) && std::isnan(e)) || g == e;
        double err = std::fabs(g - e);
        if (!same && !(err <= atol + rtol * std::fabs(e))) {
          if (mismatches < 5)
            outcome.details.push_back("buffer " + key + "[" + std::to_string(i) + "]: got " + number(g) +
                                      ", expected " + number(e));
          ++mismatches;
        } else if (!same && std::isfinite(err)) {
          worst = std::max(worst, err);
        }
      }
      if (mismatches) {
        allMatch = false;
        outcome.details.push_back("buffer " + key + ": " + std::to_string(mismatches) + " of " +
                                  std::to_string(got.count()) + " elements differ (rtol " +
                                  number(rtol) + ", atol " + number(atol) + ")");
      }
      ++compared;
    }
    outcome.passed = allMatch && compared > 0 && findingsMatch;
    if (compared == 0)
      outcome.check = "nothing to check: the case has no 'expect'";
    else if (!findingsMatch)
      outcome.check = "findings differ from the expected ones";
    else if (allMatch)
      outcome.check = std::to_string(compared) + (compared == 1 ? " output matches" : " outputs match") +
                      (worst > 0 ? " (max abs err " + number(worst) + ")" : " exactly");
    else
      outcome.check = "outputs differ from the reference";
  } catch (const std::exception& e) {
    outcome.passed = false;
    outcome.check = "error";
    outcome.details.push_back(e.what());
  }
  return outcome;
}

}  // namespace mslsim
