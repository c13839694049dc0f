#include "MlxSpecFile.h"

#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mslsim {
namespace mlx {

namespace {

using json = nlohmann::json;

std::string readText(const std::string& path, const std::string& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(field + ": cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

DType dtypeField(const json& j, const std::string& field) {
  DType d;
  if (!j.is_string() || !parseDType(j.get<std::string>(), d))
    throw Error(field + ": expected a dtype name (one of " + allDTypeNames() + ")");
  return d;
}

std::vector<std::string> strings(const json& spec, const char* key, bool required) {
  if (!spec.contains(key)) {
    if (required) throw Error(std::string("'") + key + "' is missing");
    return {};
  }
  std::vector<std::string> out;
  if (!spec[key].is_array()) throw Error(std::string("'") + key + "' must be a list of strings");
  for (auto& v : spec[key]) {
    if (!v.is_string()) throw Error(std::string("'") + key + "' must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::array<int64_t, 3> triple(const json& spec, const char* key) {
  if (!spec.contains(key) || !spec[key].is_array() || spec[key].size() != 3)
    throw Error(std::string("'") + key + "' must be a list of three integers");
  std::array<int64_t, 3> t;
  for (int i = 0; i < 3; ++i) {
    if (!spec[key][i].is_number_integer()) throw Error(std::string("'") + key + "' must be a list of three integers");
    t[i] = spec[key][i].get<int64_t>();
  }
  return t;
}

// A Python-like scalar becomes a 0-d array with MLX's conversion rules unless a dtype is given.
HostArray scalarInput(const json& value, const json* dtype, const std::string& field) {
  DType d;
  if (dtype) {
    d = dtypeField(*dtype, field + ".dtype");
  } else if (value.is_boolean()) {
    d = DType::Bool;
  } else if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    d = v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max() ? DType::Int32
                                                                                               : DType::Int64;
  } else if (value.is_number()) {
    d = DType::Float32;
  } else {
    throw Error(field + ": 'scalar' must be a number or a boolean");
  }
  HostArray a = HostArray::filled(d, 1, value.is_boolean() ? double(value.get<bool>()) : value.get<double>());
  a.shape.clear();
  return a;
}

}  // namespace

std::unique_ptr<SpecFile> loadSpecFile(const std::string& path) {
  std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  auto resolve = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : dir + "/" + p; };
  json spec;
  {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open file");
    try {
      spec = json::parse(in);
    } catch (const json::exception& e) {
      throw Error(path + ": invalid JSON: " + e.what());
    }
  }
  auto s = std::make_unique<SpecFile>();
  try {
    KernelSpec& k = s->kernel;
    if (!spec.contains("name") || !spec["name"].is_string()) throw Error("'name' is missing");
    k.name = spec["name"].get<std::string>();
    k.inputNames = strings(spec, "input_names", false);
    k.outputNames = strings(spec, "output_names", true);
    if (spec.contains("source") == spec.contains("source_file"))
      throw Error("give exactly one of 'source' and 'source_file'");
    k.source = spec.contains("source") ? spec["source"].get<std::string>()
                                       : readText(resolve(spec["source_file"].get<std::string>()), "source_file");
    if (spec.contains("header") && spec.contains("header_file"))
      throw Error("give at most one of 'header' and 'header_file'");
    if (spec.contains("header")) k.header = spec["header"].get<std::string>();
    if (spec.contains("header_file")) k.header = readText(resolve(spec["header_file"].get<std::string>()), "header_file");
    k.ensureRowContiguous = spec.value("ensure_row_contiguous", true);
    k.atomicOutputs = spec.value("atomic_outputs", false);
    std::string mode = spec.value("math_mode", "safe");
    if (mode == "safe") k.mathMode = MathMode::Safe;
    else if (mode == "relaxed") k.mathMode = MathMode::Relaxed;
    else if (mode == "fast") k.mathMode = MathMode::Fast;
    else throw ValueError("[metal_kernel] Expected math_mode to be 'safe', 'relaxed', or 'fast'.");

    Call& c = s->call;
    c.grid = triple(spec, "grid");
    c.threadgroup = triple(spec, "threadgroup");
    const json inputs = spec.value("inputs", json::array());
    s->inputStorage.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string field = "inputs[" + std::to_string(i) + "]";
      const json& in = inputs[i];
      if (in.is_string()) {
        s->inputStorage.push_back(readNpy(resolve(in.get<std::string>())));
      } else if (in.is_object() && in.contains("scalar")) {
        s->inputStorage.push_back(scalarInput(in["scalar"], in.contains("dtype") ? &in["dtype"] : nullptr, field));
      } else if (in.is_object() && in.contains("file")) {
        HostArray a = readNpy(resolve(in["file"].get<std::string>()));
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
    for (auto& shape : spec.value("output_shapes", json::array())) {
      std::vector<int64_t> dims;
      for (auto& d : shape) dims.push_back(d.get<int64_t>());
      c.outputShapes.push_back(dims);
    }
    const json dtypes = spec.value("output_dtypes", json::array());
    for (size_t i = 0; i < dtypes.size(); ++i)
      c.outputDtypes.push_back(dtypeField(dtypes[i], "output_dtypes[" + std::to_string(i) + "]"));
    for (auto& t : spec.value("template", json::array())) {
      if (!t.is_array() || t.size() != 2 || !t[0].is_string())
        throw Error("'template' entries must be [name, value]");
      const json& v = t[1];
      TemplateValue value;
      if (v.is_boolean()) value = v.get<bool>();
      else if (v.is_number_integer()) value = int(v.get<int64_t>());
      else if (v.is_string()) value = dtypeField(v, "template value of '" + t[0].get<std::string>() + "'");
      else throw ValueError("[metal_kernel] Invalid template argument. Must be `mlx.core.Dtype`, `int` or `bool`.");
      c.templateArgs.push_back({t[0].get<std::string>(), value});
    }
    if (spec.contains("init_value") && !spec["init_value"].is_null()) c.initValue = spec["init_value"].get<double>();
    for (auto& p : strings(spec, "outputs", false)) s->outputPaths.push_back(resolve(p));
  } catch (const json::exception& e) {
    throw Error(path + ": " + e.what());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return s;
}

}  // namespace mlx
}  // namespace mslsim
