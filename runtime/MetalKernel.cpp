#include <mslsim/mlx.h>

#include <cstring>
#include <iostream>
#include <sstream>

#include "Program.h"
#include "Report.h"

namespace mslsim {
namespace mlx {

namespace {

// The compute attributes MLX looks for in a kernel body, in the fixed order it emits them
// (contract §3.6), with the type it declares.
struct AttributeRow {
  const char* name;
  const char* type;
};
constexpr AttributeRow kAttributes[] = {
    {"dispatch_quadgroups_per_threadgroup", "uint"},
    {"dispatch_simdgroups_per_threadgroup", "uint"},
    {"dispatch_threads_per_threadgroup", "uint3"},
    {"grid_origin", "uint3"},
    {"grid_size", "uint3"},
    {"quadgroup_index_in_threadgroup", "uint"},
    {"quadgroups_per_threadgroup", "uint"},
    {"simdgroup_index_in_threadgroup", "uint"},
    {"simdgroups_per_threadgroup", "uint"},
    {"thread_execution_width", "uint"},
    {"thread_index_in_quadgroup", "uint"},
    {"thread_index_in_simdgroup", "uint"},
    {"thread_index_in_threadgroup", "uint"},
    {"thread_position_in_grid", "uint3"},
    {"thread_position_in_threadgroup", "uint3"},
    {"threadgroup_position_in_grid", "uint3"},
    {"threadgroups_per_grid", "uint3"},
    {"threads_per_grid", "uint3"},
    {"threads_per_simdgroup", "uint"},
    {"threads_per_threadgroup", "uint3"},
};

// MLX's threshold: inputs with fewer elements are bound as `constant`.
constexpr uint64_t kMaxConstantArraySize = 8;
constexpr uint64_t kMaxThreadsPerThreadgroup = 1024;

const char* attributeType(const std::string& name) {
  for (auto& a : kAttributes)
    if (name == a.name) return a.type;
  return "uint";
}

// MLX's write_template: "<v1, v2, ...>", bools as 1/0, dtypes by their MSL spelling.
std::string templateValues(const TemplateArgs& args) {
  std::string text = "<";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) text += ", ";
    const TemplateValue& v = args[i].second;
    if (auto* b = std::get_if<bool>(&v))
      text += *b ? "1" : "0";
    else if (auto* n = std::get_if<int>(&v))
      text += std::to_string(*n);
    else
      text += mslTypeName(std::get<DType>(v));
  }
  return text + ">";
}

// "_float", "_1_3_float16_t": the template values with <, > and ", " turned into underscores, the
// final underscore dropped (so kernel names get MLX's double underscore).
std::string templateHash(const TemplateArgs& args) {
  std::string values = templateValues(args), hash;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == '<' || values[i] == '>') {
      hash += '_';
    } else if (values[i] == ',' && i + 1 < values.size() && values[i + 1] == ' ') {
      hash += '_';
      ++i;
    } else {
      hash += values[i];
    }
  }
  if (!hash.empty()) hash.pop_back();
  return hash;
}

std::string sizeMismatch(const char* what, size_t expected, size_t got) {
  std::ostringstream out;
  out << "[metal_kernel] Expected `" << what << "` to have size " << expected << " but got size "
      << got << "." << std::endl;
  return out.str();
}

// Where each part of the generated text came from, so diagnostics point into the user's `source`
// or `header` (MLX reports them against its preamble instead).
struct SourceMap {
  unsigned headerLines = 0;    // lines 1..headerLines hold the header (the last may be shared)
  unsigned bodyFirstLine = 0;  // the first line of the body in the generated text
  unsigned bodyLines = 0;

  SourcePosition map(const SourcePosition& p, const std::string& generatedPath) const {
    if (p.file != generatedPath) return p;
    if (p.line >= bodyFirstLine && p.line < bodyFirstLine + bodyLines)
      return {"source", p.line - bodyFirstLine + 1, p.column};
    if (p.line <= headerLines) return {"header", p.line, p.column};
    return {"generated signature", p.line, p.column};
  }
};

unsigned countLines(const std::string& text) {
  unsigned n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

std::string mslTypeName(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float";
    case DType::Float16: return "float16_t";
    case DType::BFloat16: return "bfloat16_t";
    case DType::Float64: return "double";
    case DType::Complex64: return "complex64_t";
    case DType::Bool: return "bool";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt8: return "uint8_t";
    case DType::UInt16: return "uint16_t";
    case DType::UInt32: return "uint32_t";
    case DType::UInt64: return "uint64_t";
  }
  return "float";
}

uint64_t ArrayView::size() const {
  uint64_t n = 1;
  for (auto d : shape) n *= uint64_t(d);
  return n;
}

bool ArrayView::rowContiguous() const {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

ArrayView ArrayView::of(const HostArray& array) {
  ArrayView v;
  v.dtype = array.dtype;
  for (auto d : array.shape) v.shape.push_back(int64_t(d));
  v.strides.assign(v.shape.size(), 1);
  for (size_t i = v.shape.size(); i-- > 1;) v.strides[i - 1] = v.strides[i] * v.shape[i];
  v.data = array.bytes.data();
  v.allocationBegin = array.bytes.data();
  v.allocationBytes = array.bytes.size();
  return v;
}

MetalKernel::MetalKernel(KernelSpec spec) : spec_(std::move(spec)) {
  if (spec_.outputNames.empty()) throw ValueError("[metal_kernel] Must specify at least one output.");
  // Substring tests on the body only, like MLX (comments and strings count, the header does not).
  for (auto& name : spec_.inputNames) {
    Uses u;
    u.shape = spec_.source.find(name + "_shape") != std::string::npos;
    u.strides = spec_.source.find(name + "_strides") != std::string::npos;
    u.ndim = spec_.source.find(name + "_ndim") != std::string::npos;
    inputUses_.push_back(u);
  }
  for (auto& a : kAttributes)
    if (spec_.source.find(a.name) != std::string::npos) attributes_.push_back(a.name);
}

GeneratedKernel MetalKernel::generate(const Call& call) const {
  const auto& in = spec_.inputNames;
  const auto& out = spec_.outputNames;
  if (call.inputs.size() != in.size()) throw ValueError(sizeMismatch("inputs", in.size(), call.inputs.size()));
  if (call.outputShapes.size() != out.size())
    throw ValueError(sizeMismatch("output_shapes", out.size(), call.outputShapes.size()));
  if (call.outputDtypes.size() != out.size())
    throw ValueError(sizeMismatch("output_dtypes", out.size(), call.outputDtypes.size()));

  GeneratedKernel g;
  g.name = "custom_kernel_" + spec_.name;
  if (!call.templateArgs.empty()) g.name += "_" + templateHash(call.templateArgs);
  for (auto& input : call.inputs) {
    g.name += "_" + mslTypeName(input.dtype);
    if (input.shape.empty())
      g.name += "s";
    else if (input.size() < kMaxConstantArraySize)
      g.name += "c";
  }
  for (DType d : call.outputDtypes) g.name += "_" + mslTypeName(d);

  std::string& s = g.source;
  s = spec_.header;
  if (!call.templateArgs.empty()) {
    s += "template <";
    for (size_t i = 0; i < call.templateArgs.size(); ++i) {
      if (i) s += ", ";
      const TemplateValue& v = call.templateArgs[i].second;
      s += std::holds_alternative<bool>(v) ? "bool " : std::holds_alternative<int>(v) ? "int " : "typename ";
      s += call.templateArgs[i].first;
    }
    s += ">\n";
  }
  s += "[[kernel]] void " + g.name + "(\n";
  size_t index = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const ArrayView& input = call.inputs[i];
    bool scalar = input.shape.empty();
    std::string location = input.size() < kMaxConstantArraySize ? "constant" : "device";
    s += "  const " + location + " " + mslTypeName(input.dtype) + (scalar ? "&" : "*") + " " + in[i] +
         " [[buffer(" + std::to_string(index++) + ")]],\n";
    if (scalar) continue;
    if (inputUses_[i].shape)
      s += "  const constant int* " + in[i] + "_shape [[buffer(" + std::to_string(index++) + ")]],\n";
    if (inputUses_[i].strides)
      s += "  const constant int64_t* " + in[i] + "_strides [[buffer(" + std::to_string(index++) + ")]],\n";
    if (inputUses_[i].ndim)
      s += "  const constant int& " + in[i] + "_ndim [[buffer(" + std::to_string(index++) + ")]],\n";
  }
  unsigned closings = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    std::string type = mslTypeName(call.outputDtypes[i]);
    if (spec_.atomicOutputs) type = "atomic<" + type + ">";
    s += "  device " + type + "* " + out[i] + " [[buffer(" + std::to_string(index) + ")]]";
    // MLX compares the running buffer index (which also counted shape/strides/ndim buffers) with
    // the number of inputs and outputs: with two or more outputs, such buffers and no attribute,
    // several outputs close the parameter list (contract §3.8). Reproduced as MLX writes it.
    if (index < in.size() + out.size() - 1 || !attributes_.empty()) {
      s += ",\n";
    } else {
      s += ") {\n";
      ++closings;
    }
    ++index;
  }
  for (size_t i = 0; i < attributes_.size(); ++i) {
    const std::string& a = attributes_[i];
    s += "  " + std::string(attributeType(a)) + " " + a + " [[" + a + "]]";
    s += i + 1 == attributes_.size() ? ") {\n" : ",\n";
  }
  if (closings > 1)
    g.notes.push_back("MLX's generator closes the parameter list after " + std::to_string(closings) +
                      " outputs (several outputs, a _shape/_strides/_ndim buffer and no thread "
                      "attribute in the body): the generated kernel is invalid on a Mac too. Using "
                      "an attribute such as thread_position_in_grid in the body avoids it.");
  s += spec_.source + "\n}\n";
  if (!call.templateArgs.empty()) {
    std::string instance = g.name + templateValues(call.templateArgs);
    s += "\ntemplate [[host_name(\"" + g.name + "\")]] [[kernel]] decltype(" + instance + ") " +
         instance + ";\n";
  }
  return g;
}

std::vector<HostArray> MetalKernel::operator()(const Call& call) const {
  GeneratedKernel g = generate(call);
  if (call.verbose)
    std::cout << "Generated source code for `" << spec_.name << "`:" << std::endl
              << "```" << std::endl
              << g.source << std::endl
              << "```" << std::endl;

  // Compile: MLX's preamble (our equivalent) comes first, as in metal::utils() + source.
  CompileOptions options;
  options.preincludes = {"__mslsim/mlx_preamble.h"};
  options.fastMath = spec_.mathMode == MathMode::Fast;
  const std::string path = g.name + ".metal";
  SourceMap map;
  map.headerLines = countLines(spec_.header) +
                    (spec_.header.empty() || spec_.header.back() == '\n' ? 0 : 1);
  {
    size_t bodyStart = g.source.size() - spec_.source.size() - 3;  // body + "\n}\n"
    if (!call.templateArgs.empty()) {
      std::string tail = g.source.substr(g.source.rfind("\ntemplate [[host_name"));
      bodyStart -= tail.size();
    }
    map.bodyFirstLine = countLines(g.source.substr(0, bodyStart)) + 1;
    map.bodyLines = countLines(spec_.source) + 1;
  }
  std::shared_ptr<const Program> program;
  try {
    program = Program::compileSource(path, g.source, options, call.checks.needsInstrumentation());
  } catch (const CompileFailed& e) {
    std::string text = "[metal::Device] Unable to build metal library from source\n";
    for (auto d : e.diagnostics()) {
      d.where = map.map(d.where, path);
      text += formatDiagnostic(d) + "\n";
    }
    for (auto& note : g.notes) text += "note: " + note + "\n";
    throw RuntimeError(text);
  }
  const ExecutableKernel* kernel = nullptr;
  for (auto& k : program->kernels())
    if (k.info.name == g.name) kernel = &k;
  if (!kernel) throw RuntimeError("[metal::Device] Unable to load kernel " + g.name + "\n");

  // Inputs: copied to row-contiguous memory first when asked to and needed; otherwise bound as they
  // are, at their first element.
  std::vector<HostArray> copies(call.inputs.size());
  std::vector<ArrayView> bound = call.inputs;
  for (size_t i = 0; i < bound.size(); ++i) {
    ArrayView& v = bound[i];
    if (v.shape.empty() || !spec_.ensureRowContiguous || v.rowContiguous()) continue;
    HostArray& copy = copies[i];
    copy.dtype = v.dtype;
    for (auto d : v.shape) copy.shape.push_back(uint64_t(d));
    unsigned item = dtypeSize(v.dtype);
    copy.bytes.resize(v.size() * item);
    std::vector<int64_t> index(v.shape.size(), 0);
    for (uint64_t e = 0; e < v.size(); ++e) {
      int64_t offset = 0;
      for (size_t d = 0; d < index.size(); ++d) offset += index[d] * v.strides[d];
      std::memcpy(copy.bytes.data() + e * item, static_cast<const uint8_t*>(v.data) + offset * int64_t(item), item);
      for (size_t d = index.size(); d-- > 0;) {
        if (++index[d] < v.shape[d]) break;
        index[d] = 0;
      }
    }
    v = ArrayView::of(copy);
  }

  std::vector<HostArray> outputs;
  for (size_t i = 0; i < call.outputShapes.size(); ++i) {
    uint64_t count = 1;
    HostArray o;
    o.dtype = call.outputDtypes[i];
    for (auto d : call.outputShapes[i]) {
      o.shape.push_back(uint64_t(d));
      count *= uint64_t(d);
    }
    o.bytes.resize(count * dtypeSize(o.dtype));
    if (call.initValue) {
      for (uint64_t e = 0; e < count; ++e) o.setValue(e, *call.initValue);
    } else {
      // Fresh GPU allocations hold whatever was there; a recognisable NaN pattern makes a
      // read-before-write show in the results.
      const uint8_t poison[4] = {0xA5, 0xA5, 0xA5, 0x7F};
      for (size_t b = 0; b < o.bytes.size(); ++b) o.bytes[b] = poison[b % 4];
    }
    outputs.push_back(std::move(o));
  }

  // Bind in MLX's order: each input, its shape/strides/ndim, then the outputs.
  Launch launch(*kernel);
  std::vector<std::vector<int32_t>> shapes;
  std::vector<std::vector<int64_t>> strides;
  std::vector<int32_t> ndims;
  shapes.reserve(bound.size());
  strides.reserve(bound.size());
  ndims.reserve(bound.size());
  unsigned index = 0;
  for (size_t i = 0; i < bound.size(); ++i) {
    const ArrayView& v = bound[i];
    const std::string& name = spec_.inputNames[i];
    uint64_t bytes = v.allocationBytes
                         ? v.allocationBytes - uint64_t(static_cast<const uint8_t*>(v.data) -
                                                        static_cast<const uint8_t*>(v.allocationBegin))
                         : v.size() * dtypeSize(v.dtype);
    launch.bindMemory(index++, const_cast<void*>(v.data), bytes, v.dtype, "input '" + name + "'",
                      v.allocationBegin ? v.allocationBegin : v.data,
                      v.allocationBegin ? v.allocationBytes : bytes);
    if (v.shape.empty()) continue;
    if (inputUses_[i].shape) {
      shapes.emplace_back(v.shape.begin(), v.shape.end());
      launch.bindMemory(index++, shapes.back().data(), shapes.back().size() * 4, DType::Int32, name + "_shape");
    }
    if (inputUses_[i].strides) {
      strides.push_back(v.strides);
      launch.bindMemory(index++, strides.back().data(), strides.back().size() * 8, DType::Int64, name + "_strides");
    }
    if (inputUses_[i].ndim) {
      ndims.push_back(int32_t(v.shape.size()));
      launch.bindMemory(index++, &ndims.back(), 4, DType::Int32, name + "_ndim");
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    launch.bindMemory(index++, outputs[i].bytes.data(), outputs[i].bytes.size(), outputs[i].dtype,
                      "output '" + spec_.outputNames[i] + "'", nullptr, 0, !call.initValue);

  // Metal's sizes are unsigned: a negative one is a mistake (MLX would pass it on as a huge number).
  for (int d = 0; d < 3; ++d)
    for (auto [what, size] : {std::pair<const char*, const std::array<int64_t, 3>&>{"grid", call.grid},
                              {"threadgroup", call.threadgroup}})
      if (size[d] < 0 || size[d] > int64_t(0xFFFFFFFF))
        throw ValueError("[metal_kernel] " + std::string(what) + " (" + std::to_string(size[0]) + ", " +
                         std::to_string(size[1]) + ", " + std::to_string(size[2]) +
                         ") must hold sizes from 0 to 4294967295");
  int64_t requested = call.threadgroup[0] * call.threadgroup[1] * call.threadgroup[2];
  uint64_t maxThreads = kernel->info.maxTotalThreadsPerThreadgroup ? kernel->info.maxTotalThreadsPerThreadgroup
                                                                   : kMaxThreadsPerThreadgroup;
  if (requested > int64_t(maxThreads)) {
    std::ostringstream msg;
    msg << "Thread group size (" << requested << ") is greater than  the maximum allowed threads per "
        << "threadgroup (" << maxThreads << ").";
    throw ValueError(msg.str());
  }
  // dispatchThreads(grid, min(threadgroup, grid)); an empty grid launches nothing.
  Size3 grid, threadgroup;
  for (int d = 0; d < 3; ++d) {
    if (call.grid[d] <= 0) return outputs;
    grid[d] = uint32_t(call.grid[d]);
    threadgroup[d] = uint32_t(std::max<int64_t>(1, std::min(call.threadgroup[d], call.grid[d])));
  }
  DispatchResult result;
  try {
    DispatchOptions options;
    options.timeoutSeconds = call.timeoutSeconds;
    options.workers = call.workers;
    options.progress = call.progress;
    options.checks = call.checks;
    result = launch.run(DispatchMode::Threads, grid, threadgroup, options);
  } catch (const Error& e) {
    throw RuntimeError(e.what());
  }
  // Refused before anything ran (a limit of Metal's, a time limit that is not a number of seconds).
  if (result.refused)
    throw ValueError("[metal_kernel] " + (result.findings.empty() ? std::string("dispatch refused")
                                                                  : result.findings.front().message));
  // Findings name lines of the user's source or header, not of the generated text.
  // Findings name lines of the user's source or header, not of the generated text.
  auto describe = [&](const SourcePosition& where) {
    SourcePosition p = map.map(where, path);
    const std::string* origin = p.file == "source" ? &spec_.source : p.file == "header" ? &spec_.header : &g.source;
    std::istringstream lines(*origin);
    std::string line;
    for (unsigned n = 0; n < p.line && std::getline(lines, line); ++n) {}
    return describePosition(p, p.line ? line : "");
  };
  auto format = [&](const Finding& f) { return formatFinding(f, describe); };
  std::string report;
  for (auto& f : result.findings) {
    if (f.severity == Finding::Severity::Error)
      report += format(f) + "\n";
    else
      std::cerr << "mslsim: " << format(f) << std::endl;
  }
  if (!report.empty()) {
    // The JSON report names the user's source/header positions, like the text.
    std::vector<Finding> mapped = result.findings;
    for (auto& f : mapped) {
      for (auto& l : f.locations) l = map.map(l, path);
      for (auto& a : f.accesses) a.where = map.map(a.where, path);
    }
    throw KernelError("[mslsim] kernel " + g.name + " failed:\n" + report, findingsToJson(g.name, mapped));
  }
  return outputs;
}

}  // namespace mlx
}  // namespace mslsim
