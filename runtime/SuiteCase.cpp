#include "SuiteCase.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "CaseFile.h"
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
  outcome.name = baseName(directoryOf(caseJson));
  try {
    // Everything the case says is read before the kernel runs: a mistake in the file is refused
    // (exit 2), not reported after a run.
    const CaseSpec spec = readCase(caseJson);
    std::string dataDir = dataDirArg.empty() ? spec.directory : dataDirArg;
    outcome.kernel = spec.kernel;
    outcome.dispatch = (spec.threadgroupsMode ? "threadgroups " : "grid ") + text(spec.grid) +
                       ", threadgroup " + text(spec.threadgroup);
    CheckSet checks = parseCheckList(checkOverride.empty() ? spec.checks : checkOverride);
    DispatchOptions options;
    options.timeoutSeconds = spec.timeoutSeconds;
    options.checks = checks;
    options.schedule = parseSchedule(schedule);
    options.workers = workers;
    CompileOptions build;
    build.kernels = std::vector<std::string>{spec.kernel};
    auto program = Program::compileFile(spec.directory + "/" + spec.source, build, checks.needsInstrumentation(),
                                        CodeTier::Optimised, codePathsFor(options, checks.needsInstrumentation()));
    outcome.compileMs = program->compileMilliseconds();
    const ExecutableKernel& kernel = program->kernel(spec.kernel);
    Launch launch(kernel);
    std::map<unsigned, HostArray> buffers;
    launch.bindBufferSpecs(spec.buffers, buffers, dataDir, caseJson + ": buffer");
    for (auto& [index, bytes] : spec.threadgroupMemory) launch.setThreadgroupMemory(index, bytes);
    // Expected findings (the planted-bug corpus): exactly these kinds at these lines. An expected
    // finding may also give its count (occurrences folded into it, in the default in-order
    // schedule): then the reported one is compared with its count too.
    std::vector<std::string> expected;
    std::set<std::string> counted;
    for (const CaseSpec::ExpectedFinding& e : spec.findings.value_or(std::vector<CaseSpec::ExpectedFinding>{})) {
      std::string key = e.severity + " " + e.kind + " lines";
      for (auto l : e.lines) key += " " + std::to_string(l);
      if (e.count) {
        counted.insert(key);
        key += " (" + std::to_string(*e.count) + " times)";
      }
      expected.push_back(key);
    }
    struct Expectation {
      unsigned index;
      std::string key;
      HostArray values;
      double rtol, atol;
    };
    std::vector<Expectation> expectations;
    for (const CaseSpec::Expectation& e : spec.expect) {
      if (!buffers.count(e.index))
        throw Error(caseJson + ": expects buffer " + e.key + ", a view of another buffer (expect the buffer it views)");
      expectations.push_back({e.index, e.key, parseBufferSpec(e.file, dataDir), e.rtol, e.atol});
    }

    DispatchResult result = launch.run(
        spec.threadgroupsMode ? DispatchMode::Threadgroups : DispatchMode::Threads, spec.grid, spec.threadgroup,
        options);
    outcome.ran = !result.refused;
    outcome.runMs = result.milliseconds;
    for (auto& f : result.findings) outcome.details.push_back(program->formatFinding(f));
    // Expected findings (the planted-bug corpus): exactly these kinds at these lines.
    // They are the findings of the case's own checks: under others (`--check`) only the outputs
    // count, and any error fails the case.
    bool findingsChecked = spec.findings && checkOverride.empty();
    bool findingsMatch = true;
    if (findingsChecked) {
      std::vector<std::string> got;
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
    for (auto& [index, key, expected, rtol, atol] : expectations) {
      const HostArray& got = buffers[index];
      if (expected.count() != got.count())
        throw Error(caseJson + ": expected " + key + " has " + std::to_string(expected.count()) +
                         " elements, the buffer " + std::to_string(got.count()));
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
