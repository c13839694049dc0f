#include "CaseFile.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "JsonFields.h"

namespace mslsim {

namespace {

std::string directoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

Size3 size3(const JsonFields& spec, const char* key) {
  const nlohmann::json& list = spec.raw(key);
  if (!list.is_array() || list.empty() || list.size() > 3)
    throw Error(spec.name(key) + " must be a list of 1 to 3 integers");
  Size3 s{1, 1, 1};
  for (size_t i = 0; i < list.size(); ++i)
    s[i] = uint32_t(JsonFields::asInteger(list[i], spec.name(key) + "[" + std::to_string(i) + "]", 0xFFFFFFFFull));
  return s;
}

// A buffer index given as a JSON key ("buffers": {"0": ...}).
unsigned bufferIndex(const std::string& key, const std::string& field) {
  if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos)
    throw Error(field + ": '" + key + "' is not a buffer index (a non-negative integer)");
  return unsigned(std::stoul(key));
}

}  // namespace

CaseSpec readCase(const std::string& caseJson) {
  CaseSpec c;
  c.path = caseJson;
  c.directory = directoryOf(caseJson);
  nlohmann::json document = parseJsonFile(caseJson);
  const JsonFields spec(document, caseJson,
                        {"description", "source", "kernel", "grid", "threadgroup", "dispatch", "buffers",
                         "threadgroup_memory", "expect", "checks", "timeout", "findings", "order_dependent"});
  c.kernel = spec.string("kernel");
  c.source = spec.string("source", "kernel.metal");
  c.grid = size3(spec, "grid");
  c.threadgroup = size3(spec, "threadgroup");
  std::string mode = spec.string("dispatch", "threads");
  if (mode != "threads" && mode != "threadgroups")
    throw Error(spec.name("dispatch") + " must be \"threads\" or \"threadgroups\", not \"" + mode + "\"");
  c.threadgroupsMode = mode == "threadgroups";
  c.timeoutSeconds = spec.number("timeout", 60.0);
  c.checks = spec.string("checks", c.checks);

  const JsonFields buffers = spec.object("buffers");
  for (auto& [key, value] : buffers.json().items())
    c.buffers[bufferIndex(key, spec.name("buffers"))] = JsonFields::asString(value, buffers.name(key));
  const JsonFields memory = spec.object("threadgroup_memory");
  for (auto& [key, value] : memory.json().items())
    c.threadgroupMemory[bufferIndex(key, spec.name("threadgroup_memory"))] =
        JsonFields::asInteger(value, memory.name(key), ~uint64_t(0));

  if (spec.has("findings")) {
    const nlohmann::json& findings = spec.raw("findings");
    if (!findings.is_array()) throw Error(spec.name("findings") + " must be a list");
    c.findings.emplace();
    for (size_t i = 0; i < findings.size(); ++i) {
      const JsonFields e(findings[i], spec.name("findings") + "[" + std::to_string(i) + "]",
                         {"kind", "lines", "severity", "count"});
      CaseSpec::ExpectedFinding f;
      const nlohmann::json& lines = e.has("lines") ? e.raw("lines") : nlohmann::json::array();
      if (!lines.is_array()) throw Error(e.name("lines") + " must be a list of line numbers");
      for (auto& l : lines) f.lines.push_back(unsigned(JsonFields::asInteger(l, e.name("lines"), 0xFFFFFFFFull)));
      std::sort(f.lines.begin(), f.lines.end());
      f.severity = e.string("severity", f.severity);
      f.kind = e.string("kind");
      if (e.has("count")) f.count = e.integer("count", ~uint64_t(0));
      c.findings->push_back(std::move(f));
    }
  }
  const JsonFields expect = spec.object("expect");
  for (auto& [key, value] : expect.json().items()) {
    unsigned index = bufferIndex(key, spec.name("expect"));
    const JsonFields e(value, expect.name(key), {"file", "rtol", "atol"});
    if (!c.buffers.count(index)) throw Error(caseJson + ": expects buffer " + key + ", which is not bound");
    c.expect.push_back({index, key, e.string("file"), e.number("rtol", 0.0), e.number("atol", 0.0)});
  }
  return c;
}

}  // namespace mslsim
