// case.json, read as runCase (runtime/SuiteCase.cpp) reads it up to the point where it compiles
// the kernel and loads data: parseJsonFile, then JsonFields over the case's fields in the same
// order with the same known-field lists, types and limits (a misspelt field must be refused with a
// suggestion, a wrong type with the field's name). runCase itself compiles and runs kernels, too
// slow to fuzz; buffer specs and .npy files have targets of their own (fuzz_buffer_spec,
// fuzz_npy), so the specs' text is read here but not parsed.
//
// size3 and bufferIndex are runCase's own helpers (file-local in SuiteCase.cpp), copied: keep them
// in step. An Error is the expected answer to a bad case and must name the file (JsonFields'
// promise; "--check" lists name the flag); anything else, or an Error that names neither, is a
// finding.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "FuzzSupport.h"
#include "JsonFields.h"
#include "Program.h"

using mslsim::Error;
using mslsim::JsonFields;

namespace {

mslsim::Size3 size3(const JsonFields& spec, const char* key) {
  const nlohmann::json& list = spec.raw(key);
  if (!list.is_array() || list.empty() || list.size() > 3)
    throw Error(spec.name(key) + " must be a list of 1 to 3 integers");
  mslsim::Size3 s{1, 1, 1};
  for (size_t i = 0; i < list.size(); ++i)
    s[i] = uint32_t(JsonFields::asInteger(list[i], spec.name(key) + "[" + std::to_string(i) + "]", 0xFFFFFFFFull));
  return s;
}

unsigned bufferIndex(const std::string& key, const std::string& field) {
  if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos)
    throw Error(field + ": '" + key + "' is not a buffer index (a non-negative integer)");
  return unsigned(std::stoul(key));
}

void readCase(const std::string& caseJson) {
  nlohmann::json document = mslsim::parseJsonFile(caseJson);
  const JsonFields spec(document, caseJson,
                        {"description", "source", "kernel", "grid", "threadgroup", "dispatch", "buffers",
                         "threadgroup_memory", "expect", "checks", "timeout", "findings", "order_dependent"});
  std::string kernel = spec.string("kernel");
  std::string source = spec.string("source", "kernel.metal");
  mslsim::Size3 grid = size3(spec, "grid"), threadgroup = size3(spec, "threadgroup");
  std::string mode = spec.string("dispatch", "threads");
  if (mode != "threads" && mode != "threadgroups")
    throw Error(spec.name("dispatch") + " must be \"threads\" or \"threadgroups\", not \"" + mode + "\"");
  mslsim::CheckSet checks = mslsim::parseCheckList(spec.string("checks", "bounds,sync"));

  const JsonFields bufferSpecs = spec.object("buffers");
  std::vector<std::pair<unsigned, std::string>> specs;
  for (auto& [key, value] : bufferSpecs.json().items())
    specs.emplace_back(bufferIndex(key, spec.name("buffers")), JsonFields::asString(value, bufferSpecs.name(key)));
  const JsonFields tgSpecs = spec.object("threadgroup_memory");
  for (auto& [key, value] : tgSpecs.json().items()) {
    bufferIndex(key, spec.name("threadgroup_memory"));
    JsonFields::asInteger(value, tgSpecs.name(key), ~uint64_t(0));
  }
  if (spec.has("findings")) {
    const nlohmann::json& findings = spec.raw("findings");
    if (!findings.is_array()) throw Error(spec.name("findings") + " must be a list");
    for (size_t i = 0; i < findings.size(); ++i) {
      const JsonFields e(findings[i], spec.name("findings") + "[" + std::to_string(i) + "]",
                         {"kind", "lines", "severity", "count"});
      const nlohmann::json& lineList = e.has("lines") ? e.raw("lines") : nlohmann::json::array();
      if (!lineList.is_array()) throw Error(e.name("lines") + " must be a list of line numbers");
      for (auto& l : lineList) JsonFields::asInteger(l, e.name("lines"), 0xFFFFFFFFull);
      std::string key = e.string("severity", "error") + " " + e.string("kind") + " lines";
      if (e.has("count")) key += " (" + std::to_string(e.integer("count", ~uint64_t(0))) + " times)";
    }
  }
  const JsonFields expect = spec.object("expect");
  for (auto& [key, value] : expect.json().items()) {
    bufferIndex(key, spec.name("expect"));
    const JsonFields e(value, expect.name(key), {"file", "rtol", "atol"});
    e.string("file");
    e.number("rtol", 0.0);
    e.number("atol", 0.0);
  }
  double timeout = spec.number("timeout", 60.0);
  volatile uint64_t sink = grid[0] + threadgroup[0] + specs.size() + kernel.size() + source.size() +
                           uint64_t(checks.needsInstrumentation()) + uint64_t(timeout == 0);
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
