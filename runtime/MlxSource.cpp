// What MLX's mx.fast.metal_kernel generates for a call: the kernel's name and its source (the
// header, the signature MLX writes around the body, the template instance). Plain text: the
// construction checks and the generation need no compiler, so tests/fuzz fuzzes them with SPEC.json.
#include <mslsim/mlx.h>

#include <sstream>

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

}  // namespace mlx
}  // namespace mslsim
