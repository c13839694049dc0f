#include "MlxSpecFile.h"

#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "JsonFields.h"
#include "UserInput.h"

namespace mslsim {
namespace mlx {

namespace {

using json = nlohmann::json;

DType dtypeField(const json& j, const std::string& field) {
  DType d;
  if (!j.is_string() || !parseDType(j.get<std::string>(), d))
    throw Error(field + ": expected a dtype name (one of " + allDTypeNames() + ")");
  return d;
}

std::vector<std::string> strings(const JsonFields& spec, const char* key, bool required) {
  if (!spec.has(key)) {
    if (required) throw Error(spec.name(key) + " is missing");
    return {};
  }
  const json& list = spec.raw(key);
  if (!list.is_array()) throw Error(spec.name(key) + " must be a list of strings, not " + JsonFields::typeName(list));
  std::vector<std::string> out;
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(JsonFields::asString(list[i], spec.name(key) + "[" + std::to_string(i) + "]"));
  return out;
}

// MLX takes grid and threadgroup as three ints; the simulator's limits are checked at dispatch.
std::array<int64_t, 3> triple(const JsonFields& spec, const char* key) {
  const json& list = spec.raw(key);
  if (!list.is_array() || list.size() != 3) throw Error(spec.name(key) + " must be a list of three integers");
  std::array<int64_t, 3> t;
  for (int i = 0; i < 3; ++i)
    t[i] = int64_t(JsonFields::asInteger(list[i], spec.name(key) + "[" + std::to_string(i) + "]", 0xFFFFFFFFull));
  return t;
}

// A Python-like scalar becomes a 0-d array with MLX's conversion rules unless a dtype is given.
HostArray scalarInput(const json& value, const json* dtype, const std::string& field) {
  if (!value.is_number() && !value.is_boolean())
    throw Error(field + ": 'scalar' must be a number or a boolean, not " + JsonFields::typeName(value));
  DType d;
  if (dtype) {
    d = dtypeField(*dtype, field + ".dtype");
  } else if (value.is_boolean()) {
    d = DType::Bool;
  } else if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    d = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max() ? DType::Int32
                                                                                               : DType::Int64;
  } else {
    d = DType::Float32;
  }
  HostArray a = HostArray::filled(d, 1, value.is_boolean() ? double(value.get<bool>()) : value.get<double>());
  a.shape.clear();
  return a;
}

}  // namespace

std::unique_ptr<SpecFile> loadSpecFile(const std::string& path) {
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  auto resolve = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : dir + "/" + p; };
  json document = parseJsonFile(path);
  const JsonFields spec(document, path,
                        {"name", "input_names", "output_names", "source", "source_file", "header", "header_file",
                         "template", "grid", "threadgroup", "inputs", "output_shapes", "output_dtypes",
                         "init_value", "ensure_row_contiguous", "atomic_outputs", "math_mode", "outputs",
                         "description"});
  auto s = std::make_unique<SpecFile>();
  KernelSpec& k = s->kernel;
  k.name = spec.string("name");
  k.inputNames = strings(spec, "input_names", false);
  k.outputNames = strings(spec, "output_names", true);
  if (spec.has("source") == spec.has("source_file"))
    throw Error(path + ": give exactly one of 'source' and 'source_file'");
  k.source = spec.has("source") ? spec.string("source") : readTextFile(resolve(spec.string("source_file")));
  if (spec.has("header") && spec.has("header_file"))
    throw Error(path + ": give at most one of 'header' and 'header_file'");
  if (spec.has("header")) k.header = spec.string("header");
  if (spec.has("header_file")) k.header = readTextFile(resolve(spec.string("header_file")));
  k.ensureRowContiguous = spec.boolean("ensure_row_contiguous", true);
  k.atomicOutputs = spec.boolean("atomic_outputs", false);
  std::string mode = spec.string("math_mode", "safe");
  if (mode == "safe") k.mathMode = MathMode::Safe;
  else if (mode == "relaxed") k.mathMode = MathMode::Relaxed;
  else if (mode == "fast") k.mathMode = MathMode::Fast;
  else throw ValueError(spec.name("math_mode") + ": expected 'safe', 'relaxed' or 'fast', not '" + mode + "'");

  Call& c = s->call;
  c.grid = triple(spec, "grid");
  c.threadgroup = triple(spec, "threadgroup");
  const json& inputs = spec.has("inputs") ? spec.raw("inputs") : json::array();
  if (!inputs.is_array()) throw Error(spec.name("inputs") + " must be a list");
  s->inputStorage.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string field = spec.name("inputs") + "[" + std::to_string(i) + "]";
    const json& in = inputs[i];
    if (in.is_string()) {
      s->inputStorage.push_back(readNpy(resolve(in.get<std::string>())));
    } else if (in.is_object() && in.contains("scalar")) {
      JsonFields input(in, field, {"scalar", "dtype"});
      s->inputStorage.push_back(scalarInput(in["scalar"], in.contains("dtype") ? &in["dtype"] : nullptr, field));
    } else if (in.is_object() && in.contains("file")) {
      JsonFields input(in, field, {"file", "dtype"});
      HostArray a = readNpy(resolve(input.string("file")));
      if (in.contains("dtype")) {
        DType d = dtypeField(in["dtype"], field + ".dtype");
        if (dtypeSize(d) != dtypeSize(a.dtype))
          throw Error(field + ": dtype " + dtypeName(d) + " does not fit the file's " + dtypeName(a.dtype));
        a.dtype = d;  // e.g. bfloat16 stored as <u2 bit patterns
      }
      s->inputStorage.push_back(std::move(a));
    } else {
      throw Error(field + ": expected a .npy path, {\"file\": path, \"dtype\": ...} or {\"scalar\": v, \"dtype\": ...}");
    }
    c.inputs.push_back(ArrayView::of(s->inputStorage.back()));
  }
  const json& shapes = spec.has("output_shapes") ? spec.raw("output_shapes") : json::array();
  if (!shapes.is_array()) throw Error(spec.name("output_shapes") + " must be a list of shapes");
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::string field = spec.name("output_shapes") + "[" + std::to_string(i) + "]";
    if (!shapes[i].is_array()) throw Error(field + " must be a list of dimensions");
    std::vector<int64_t> dims;
    for (size_t d = 0; d < shapes[i].size(); ++d)
      dims.push_back(int64_t(JsonFields::asInteger(shapes[i][d], field + "[" + std::to_string(d) + "]",
                                                 uint64_t(std::numeric_limits<int64_t>::max()))));
    c.outputShapes.push_back(dims);
  }
  const json& dtypes = spec.has("output_dtypes") ? spec.raw("output_dtypes") : json::array();
  if (!dtypes.is_array()) throw Error(spec.name("output_dtypes") + " must be a list of dtype names");
  for (size_t i = 0; i < dtypes.size(); ++i)
    c.outputDtypes.push_back(dtypeField(dtypes[i], spec.name("output_dtypes") + "[" + std::to_string(i) + "]"));
  const json& templates = spec.has("template") ? spec.raw("template") : json::array();
  if (!templates.is_array()) throw Error(spec.name("template") + " must be a list of [name, value] pairs");
  for (auto& t : templates) {
    if (!t.is_array() || t.size() != 2 || !t[0].is_string())
      throw Error(spec.name("template") + ": entries must be [name, value]");
    const json& v = t[1];
    const std::string what = spec.name("template") + ": the value of '" + t[0].get<std::string>() + "'";
    TemplateValue value;
    if (v.is_boolean()) {
      value = v.get<bool>();
    } else if (v.is_number_integer()) {
      // MLX's template integers are C ints (as Python's metal_kernel refuses larger ones).
      if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(INT32_MAX)
                                 : v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX)
        throw Error(what + " (" + v.dump() + ") does not fit a 32-bit int");
      value = int(v.get<int64_t>());
    } else if (v.is_string()) {
      value = dtypeField(v, what);
    } else {
      throw Error(what + " (" + v.dump() + ") must be a dtype name, an integer or a boolean");
    }
    c.templateArgs.push_back({t[0].get<std::string>(), value});
  }
  if (spec.has("init_value") && !spec.raw("init_value").is_null()) c.initValue = spec.number("init_value");
  for (auto& p : strings(spec, "outputs", false)) s->outputPaths.push_back(resolve(p));
  return s;
}

}  // namespace mlx
}  // namespace mslsim
