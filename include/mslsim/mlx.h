// MLX's `mx.fast.metal_kernel` on Linux: the factory, the generated signature (byte for byte what
// MLX generates, see shared/reference/mlx-metal-kernel-contract.md), binding in MLX's order and
// dispatchThreads semantics. The Python module and `mslsim run SPEC.json` wrap this.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <mslsim/types.h>
#include <mslsim/host_array.h>

namespace mslsim {
namespace mlx {

// MLX raises ValueError for these (std::invalid_argument in its C++ API)...
class ValueError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// ...and RuntimeError for these (compile errors, missing kernels).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The kernel ran and mslsim found a bug in it (barrier divergence, a fault, a timeout). `report`
// is the readable report, one block per finding.
class KernelError : public std::runtime_error {
 public:
  KernelError(const std::string& report, std::string json) : std::runtime_error(report), json_(std::move(json)) {}
  // The same findings in the schema of `mslsim run --report-json` (docs/checks.md).
  const std::string& json() const { return json_; }

 private:
  std::string json_;
};

enum class MathMode { Safe, Relaxed, Fast };

// An MLX template argument: `int`, `bool` or a dtype (`typename`), in the caller's order.
using TemplateValue = std::variant<int, bool, DType>;
using TemplateArgs = std::vector<std::pair<std::string, TemplateValue>>;

// A kernel input as MLX sees an array: dtype, logical shape and element strides, and where its
// first logical element is. `allocationBegin`/`allocationBytes` give the real extent of the memory
// behind it (a broadcast view's allocation can be smaller than size * itemsize; negative strides
// reach below `data`).
struct ArrayView {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;    // empty: a 0-d array (a scalar)
  std::vector<int64_t> strides;  // in elements, one per dimension
  const void* data = nullptr;
  const void* allocationBegin = nullptr;
  uint64_t allocationBytes = 0;

  uint64_t size() const;  // logical element count
  bool rowContiguous() const;
  // A contiguous 1-element or n-element view over `array`'s bytes (which must outlive the view).
  static ArrayView of(const HostArray& array);
};

struct KernelSpec {
  std::string name;
  std::vector<std::string> inputNames, outputNames;
  std::string source;  // the kernel body
  std::string header;
  bool ensureRowContiguous = true;
  bool atomicOutputs = false;
  MathMode mathMode = MathMode::Safe;
};

struct Call {
  std::vector<ArrayView> inputs;
  std::vector<std::vector<int64_t>> outputShapes;
  std::vector<DType> outputDtypes;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> threadgroup{1, 1, 1};
  TemplateArgs templateArgs;
  std::optional<double> initValue;
  bool verbose = false;
  double timeoutSeconds = 60;
  unsigned workers = 0;  // as DispatchOptions::workers
  std::function<void(uint64_t done, uint64_t total, uint64_t findings)> progress;  // as DispatchOptions::progress
  CheckSet checks;  // default: bounds and sync
  std::shared_ptr<const Suppressions> suppressions;  // as DispatchOptions::suppressions
  // Report mode (docs/checks.md): errors are printed on stderr and the outputs returned, instead
  // of KernelError.
  bool reportFindings = false;
};

struct GeneratedKernel {
  std::string name;    // the kernel (and host) name MLX derives, e.g. custom_kernel_myexp__float_...
  std::string source;  // header + template line + signature + body + instantiation, as MLX writes it
  std::vector<std::string> notes;  // where MLX's generator writes invalid text, what happened
};

// The MSL spelling MLX uses for a dtype in generated code and kernel names ("float", "float16_t",
// "int32_t", "bfloat16_t", ...).
std::string mslTypeName(DType dtype);

class MetalKernel {
 public:
  // Validates what MLX validates at construction ("[metal_kernel] Must specify at least one
  // output.") and scans `source` (not `header`) once for `<input>_shape/_strides/_ndim` and the
  // 20 attribute names, as MLX does.
  explicit MetalKernel(KernelSpec spec);

  const KernelSpec& spec() const { return spec_; }

  // The kernel name and source MLX would generate for this call (call-time checks included).
  GeneratedKernel generate(const Call& call) const;

  // Generates, compiles (cached per source), binds in MLX's order and dispatches; returns the
  // outputs (row-contiguous, shapes and dtypes as requested). Throws ValueError / RuntimeError
  // with MLX's messages, and KernelError when a check finds a bug in the kernel.
  std::vector<HostArray> operator()(const Call& call) const;

 private:
  KernelSpec spec_;
  struct Uses {
    bool shape = false, strides = false, ndim = false;
  };
  std::vector<Uses> inputUses_;
  std::vector<std::string> attributes_;  // detected, in MLX's fixed order
};

}  // namespace mlx
}  // namespace mslsim
