#include "Report.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace mslsim {

namespace {

using json = nlohmann::json;

json triple(Size3 s) { return json::array({s[0], s[1], s[2]}); }

const char* severityName(Finding::Severity s) { return s == Finding::Severity::Error ? "error" : "warning"; }

}  // namespace

std::string describePosition(const SourcePosition& where, const std::string& line) {
  if (where.file.empty()) return "(unknown location)";
  std::string text = where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  if (!line.empty()) {
    text += "\n      " + line + "\n      ";
    for (unsigned i = 1; i < where.column && i <= line.size(); ++i) text += line[i - 1] == '\t' ? '\t' : ' ';
    text += "^";
  }
  return text;
}

std::string formatFinding(const Finding& f, const std::function<std::string(const SourcePosition&)>& describe) {
  std::string text = std::string(severityName(f.severity)) + " [" + f.kind + "]: " + f.message;
  if (f.count > 1) text += " (" + std::to_string(f.count) + " times)";
  auto coords = [](Size3 s) {
    return "(" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) + ")";
  };
  if (!f.accesses.empty()) {
    for (auto& a : f.accesses)
      text += "\n  " + a.op + " by thread " + coords(a.thread) + " (lane " + std::to_string(a.lane) +
              ") of threadgroup " + coords(a.threadgroup) + " at " + describe(a.where);
  } else {
    for (auto& where : f.locations) text += "\n  at " + describe(where);
  }
  if (!f.hint.empty()) text += "\n  hint: " + f.hint;
  return text;
}

std::string findingsToJson(const std::string& kernel, const std::vector<Finding>& findings) {
  json diagnostics = json::array();
  unsigned errors = 0, warnings = 0;
  for (auto& f : findings) {
    (f.severity == Finding::Severity::Error ? errors : warnings) += 1;
    json d = {{"kind", f.kind}, {"severity", severityName(f.severity)}, {"message", f.message}, {"count", f.count}};
    if (!f.memorySpace.empty()) d["memory"] = f.memorySpace;
    if (!f.hazard.empty()) d["hazard"] = f.hazard;
    if (!f.memory.empty()) {
      json loc = json::object();
      if (!f.location.variable.empty()) {
        loc["variable"] = f.location.variable;
      } else {
        loc["buffer"] = f.location.buffer;
        loc["argument"] = f.location.argument;
      }
      loc["element"] = f.location.element;
      loc["byte_offset"] = f.location.byteOffset;
      d["location"] = loc;
    }
    json accesses = json::array();
    for (auto& a : f.accesses)
      accesses.push_back({{"op", a.op}, {"file", a.where.file}, {"line", a.where.line}, {"column", a.where.column},
                          {"threadgroup", triple(a.threadgroup)}, {"thread", triple(a.thread)}, {"simd_lane", a.lane}});
    if (f.accesses.empty())
      for (auto& l : f.locations)
        accesses.push_back({{"op", "barrier"}, {"file", l.file}, {"line", l.line}, {"column", l.column}});
    d["accesses"] = accesses;
    if (!f.hint.empty()) d["hint"] = f.hint;
    diagnostics.push_back(d);
  }
  json report = {{"kernel", kernel}, {"diagnostics", diagnostics}, {"summary", {{"errors", errors}, {"warnings", warnings}}}};
  return report.dump(2) + "\n";
}

std::string findingsToSarif(const std::vector<KernelFindings>& dispatches) {
  json rules = json::array(), results = json::array();
  std::vector<std::string> ruleIds;
  for (auto& [kernel, findings] : dispatches)
    for (auto& f : findings) {
      if (std::find(ruleIds.begin(), ruleIds.end(), f.kind) == ruleIds.end()) {
        ruleIds.push_back(f.kind);
        rules.push_back({{"id", f.kind}, {"shortDescription", {{"text", f.kind}}}});
      }
      json locations = json::array();
      for (auto& l : f.locations)
        if (!l.file.empty())
          locations.push_back({{"physicalLocation",
                                {{"artifactLocation", {{"uri", l.file}}},
                                 {"region", {{"startLine", l.line}, {"startColumn", std::max(1u, l.column)}}}}}});
      results.push_back({{"ruleId", f.kind},
                         {"level", severityName(f.severity)},
                         {"message", {{"text", "kernel " + kernel + ": " + f.message}}},
                         {"locations", locations}});
    }
  json sarif = {{"version", "2.1.0"},
                {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"runs", json::array({{{"tool", {{"driver", {{"name", "mslsim"}, {"rules", rules}}}}},
                                       {"results", results}}})}};
  return sarif.dump(2) + "\n";
}

}  // namespace mslsim
