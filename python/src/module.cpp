// `mslsim._mslsim`: the C++ half of the Python module. It holds one mslsim::mlx::MetalKernel per
// `mslsim.metal_kernel(...)` object and runs it on numpy arrays. The Python half
// (python/mslsim/__init__.py) does what MLX's nanobind layer does: argument types, Python scalars,
// dtypes, template values, compile options, streams. What arrives here is already normalised:
//
//   inputs:        [(dtype name, numpy array)]  any strides that are multiples of the item size,
//                                               native byte order, aligned; bfloat16 as uint16
//   output_dtypes: [dtype name]
//   template:      [(name, kind, value)]        kind "bool" | "int" | "dtype" (value: dtype name)
//
// Errors keep MLX's texts and types: mlx::ValueError (std::invalid_argument) -> ValueError,
// mlx::RuntimeError (std::runtime_error) -> RuntimeError, mlx::KernelError -> mslsim.KernelError
// (a subclass of RuntimeError).
#include <mslsim/mslsim.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <mslsim/host_array.h>
#include <mslsim/mlx.h>
#include "Program.h"
#include "Report.h"

namespace py = pybind11;
using mslsim::DType;
using mslsim::HostArray;
namespace mx = mslsim::mlx;

namespace {

// One kernel at a time: the compile cache and the executor are not promised to be re-entrant, and
// the GIL is released while a kernel runs.
std::mutex runMutex;

DType dtypeFromName(const std::string& name) {
  DType t;
  if (name == "bool_") return DType::Bool;
  if (!mslsim::parseDType(name, t)) throw py::value_error("mslsim: unknown dtype '" + name + "'");
  return t;
}

// The numpy dtype that holds a DType's bytes (bfloat16: its uint16 bit patterns).
py::dtype numpyDtype(DType t) {
  switch (t) {
    case DType::Float32: return py::dtype("float32");
    case DType::Float16: return py::dtype("float16");
    case DType::BFloat16: return py::dtype("uint16");
    case DType::Int8: return py::dtype("int8");
    case DType::Int16: return py::dtype("int16");
    case DType::Int32: return py::dtype("int32");
    case DType::Int64: return py::dtype("int64");
    case DType::UInt8: return py::dtype("uint8");
    case DType::UInt16: return py::dtype("uint16");
    case DType::UInt32: return py::dtype("uint32");
    case DType::UInt64: return py::dtype("uint64");
    case DType::Bool: return py::dtype("bool");
    case DType::Float64: return py::dtype("float64");
    case DType::Complex64: return py::dtype("complex64");
  }
  return py::dtype("float32");
}

// An MLX array view over a numpy array's memory: element strides, the first element, and the
// byte range reachable through shape and strides (below `data` for negative strides).
mx::ArrayView viewOf(DType dtype, const py::array& array) {
  const int64_t item = mslsim::dtypeSize(dtype);
  if (array.itemsize() != item)
    throw py::value_error(std::string("mslsim: a ") + mslsim::dtypeName(dtype) + " input needs " +
                          std::to_string(item) + "-byte elements, got " +
                          std::to_string(array.itemsize()));
  mx::ArrayView v;
  v.dtype = dtype;
  v.data = array.data();
  int64_t low = 0, high = 0;  // byte offsets of the lowest and highest reachable element
  bool empty = false;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    int64_t extent = array.shape(d), stride = array.strides(d);
    if (stride % item != 0)
      throw py::value_error("mslsim: numpy strides must be multiples of the item size");
    v.shape.push_back(extent);
    v.strides.push_back(stride / item);
    if (extent == 0) empty = true;
    if (extent > 1) (stride < 0 ? low : high) += (extent - 1) * stride;
  }
  const uint8_t* first = static_cast<const uint8_t*>(v.data);
  v.allocationBegin = first + (empty ? 0 : low);
  v.allocationBytes = empty ? 0 : uint64_t(high - low + item);
  return v;
}

// A HostArray handed to numpy without a copy: the capsule owns it.
py::array toNumpy(HostArray&& host) {
  auto* owned = new HostArray(std::move(host));
  py::capsule owner(owned, [](void* p) { delete static_cast<HostArray*>(p); });
  std::vector<py::ssize_t> shape(owned->shape.begin(), owned->shape.end());
  return py::array(numpyDtype(owned->dtype), shape, owned->bytes.data(), owner);
}

// mslsim.suppressions: each file read once per process, so that its rules' uses add up over the
// calls and the summary at exit (suppression_summary) covers them all.
std::mutex suppressionsMutex;
std::map<std::string, std::shared_ptr<mslsim::Suppressions>> loadedSuppressions;

std::shared_ptr<const mslsim::Suppressions> suppressionsFrom(const std::string& path) {
  if (path.empty()) return nullptr;
  std::lock_guard<std::mutex> lock(suppressionsMutex);
  auto& s = loadedSuppressions[path];
  if (!s) {
    try {
      s = mslsim::Suppressions::fromFile(path);
    } catch (const mslsim::Error& e) {
      loadedSuppressions.erase(path);
      throw py::value_error(std::string("mslsim.suppressions: ") + e.what());
    }
  }
  return s;
}

std::vector<std::string> suppressionSummary() {
  std::lock_guard<std::mutex> lock(suppressionsMutex);
  std::vector<std::string> lines;
  for (auto& [path, s] : loadedSuppressions)
    for (std::string& line : s->summary(path)) lines.push_back(std::move(line));
  return lines;
}

// DispatchOptions::progress from Python's `progress`: None for none, else a callable taking
// (phase, done, total), called with the GIL held (the dispatch runs without it).
std::function<void(uint64_t, uint64_t, uint64_t)> progressCallback(const py::object& progress) {
  if (progress.is_none()) return {};
  auto release = [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  };
  std::shared_ptr<py::object> callable(new py::object(progress), release);
  return [callable](uint64_t done, uint64_t total, uint64_t /*findings*/) {
    py::gil_scoped_acquire gil;
    try {
      (*callable)("dispatching", done, total);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("mslsim progress callback");
    }
  };
}

class PyMetalKernel {
 public:
  PyMetalKernel(std::string name, std::vector<std::string> inputNames,
                std::vector<std::string> outputNames, std::string source, std::string header,
                bool ensureRowContiguous, bool atomicOutputs, const std::string& mathMode)
      : kernel_(makeSpec(std::move(name), std::move(inputNames), std::move(outputNames),
                         std::move(source), std::move(header), ensureRowContiguous, atomicOutputs,
                         mathMode)) {}

  // MLX's call-time order: sizes, then the stream, then generation (and the verbose print), then
  // the kernel (compile errors, the threadgroup-size check and kernel faults surface here).
  // Returns [(dtype name, numpy array)].
  py::list call(const std::vector<std::tuple<std::string, py::array>>& inputs,
                const std::vector<std::vector<int64_t>>& outputShapes,
                const std::vector<std::string>& outputDtypes, std::array<int64_t, 3> grid,
                std::array<int64_t, 3> threadgroup,
                const std::vector<std::tuple<std::string, std::string, py::object>>& templateArgs,
                std::optional<double> initValue, bool verbose, bool cpuStream,
                double timeoutSeconds, const std::string& checks, unsigned workers,
                const std::string& suppressions, bool reportFindings, const py::object& progress) const {
    mx::Call call;
    call.suppressions = suppressionsFrom(suppressions);
    call.reportFindings = reportFindings;
    try {
      call.checks = mslsim::parseCheckList(checks);
    } catch (const mslsim::Error& e) {
      throw py::value_error(e.what());
    }
    for (auto& [dtype, array] : inputs) call.inputs.push_back(viewOf(dtypeFromName(dtype), array));
    call.outputShapes = outputShapes;
    for (auto& d : outputDtypes) call.outputDtypes.push_back(dtypeFromName(d));
    call.grid = grid;
    call.threadgroup = threadgroup;
    for (auto& [name, kind, value] : templateArgs) {
      if (kind == "bool")
        call.templateArgs.emplace_back(name, mx::TemplateValue(value.cast<bool>()));
      else if (kind == "int")
        call.templateArgs.emplace_back(name, mx::TemplateValue(value.cast<int>()));
      else
        call.templateArgs.emplace_back(name, mx::TemplateValue(dtypeFromName(value.cast<std::string>())));
    }
    call.initValue = initValue;
    call.verbose = false;  // printed here, through sys.stdout, so Python-side capture sees it
    call.timeoutSeconds = timeoutSeconds;
    call.workers = workers;
    call.progress = progressCallback(progress);

    mx::GeneratedKernel generated = kernel_.generate(call);  // the size checks
    if (cpuStream) throw mx::ValueError("[metal_kernel] Only supports the GPU.");
    if (verbose) {
      py::object out = py::module_::import("sys").attr("stdout");
      out.attr("write")("Generated source code for `" + kernel_.spec().name + "`:\n```\n" +
                        generated.source + "\n```\n");
      out.attr("flush")();
    }

    std::vector<HostArray> outputs;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(runMutex);
      outputs = kernel_(call);
    }
    py::list result;
    for (auto& o : outputs) {
      std::string name = mslsim::dtypeName(o.dtype);
      result.append(py::make_tuple(name, toNumpy(std::move(o))));
    }
    return result;
  }

  const mx::KernelSpec& spec() const { return kernel_.spec(); }

 private:
  static mx::KernelSpec makeSpec(std::string name, std::vector<std::string> inputNames,
                                 std::vector<std::string> outputNames, std::string source,
                                 std::string header, bool ensureRowContiguous, bool atomicOutputs,
                                 const std::string& mathMode) {
    mx::KernelSpec spec;
    spec.name = std::move(name);
    spec.inputNames = std::move(inputNames);
    spec.outputNames = std::move(outputNames);
    spec.source = std::move(source);
    spec.header = std::move(header);
    spec.ensureRowContiguous = ensureRowContiguous;
    spec.atomicOutputs = atomicOutputs;
    if (mathMode == "safe")
      spec.mathMode = mx::MathMode::Safe;
    else if (mathMode == "relaxed")
      spec.mathMode = mx::MathMode::Relaxed;
    else if (mathMode == "fast")
      spec.mathMode = mx::MathMode::Fast;
    else
      throw mx::ValueError("[metal_kernel] Expected math_mode to be 'safe', 'relaxed', or 'fast'.");
    return spec;
  }

  mx::MetalKernel kernel_;
};

// `mslsim.Library`: a whole .metal file or source string, its kernels dispatched on numpy memory
// bound in place, as Metal binds buffers (python/mslsim/library.py normalises the arguments).
class PyLibrary {
 public:
  PyLibrary(std::optional<std::string> path, std::optional<std::string> source, std::string name,
            std::vector<std::string> includeDirs, std::vector<std::string> defines,
            std::map<unsigned, double> constants)
      : path_(path ? *path : name), source_(std::move(source)) {
    options_.includeDirs = std::move(includeDirs);
    options_.defines = std::move(defines);
    options_.functionConstants = std::move(constants);
    options_.kernels = std::vector<std::string>{};  // parse now, generate code per kernel when called
    program(false);                                // compile errors surface here
  }

  std::vector<std::string> kernelNames() const {
    return mslsim::Program::listKernels(path_, source_ ? *source_ : mslsim::readTextFile(path_), options_);
  }

  // bindings: (index, dtype name or "raw", address, bytes, allocation begin, allocation bytes, origin)
  void dispatch(const std::string& kernelName,
                const std::vector<std::tuple<unsigned, std::string, uintptr_t, uint64_t, uintptr_t, uint64_t, std::string>>& bindings,
                const std::map<unsigned, uint64_t>& threadgroupMemory, std::array<uint32_t, 3> grid,
                std::array<uint32_t, 3> threadgroup, const std::string& mode, const std::string& checks,
                double timeoutSeconds, unsigned workers, const std::string& suppressions, bool reportFindings,
                const py::object& progress) {
    mslsim::DispatchOptions options;
    options.suppressions = suppressionsFrom(suppressions);
    options.progress = progressCallback(progress);
    try {
      options.checks = mslsim::parseCheckList(checks);
    } catch (const mslsim::Error& e) {
      throw py::value_error(e.what());
    }
    options.timeoutSeconds = timeoutSeconds;
    options.workers = workers;
    if (mode != "threads" && mode != "threadgroups")
      throw py::value_error("mslsim: dispatch must be 'threads' or 'threadgroups', not '" + mode + "'");
    mslsim::DispatchResult result;
    std::shared_ptr<const mslsim::Program> p;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(runMutex);
      try {
        p = program(options.checks.needsInstrumentation());
        mslsim::Launch launch(p->kernel(kernelName));
        for (auto& [index, dtype, address, bytes, begin, allocationBytes, origin] : bindings) {
          bool raw = dtype == "raw";
          launch.bindMemory(index, reinterpret_cast<void*>(address), bytes, raw ? DType::UInt8 : dtypeFromName(dtype),
                            origin, reinterpret_cast<const void*>(begin), allocationBytes, false, raw);
        }
        for (auto& [index, bytes] : threadgroupMemory) launch.setThreadgroupMemory(index, bytes);
        result = launch.run(mode == "threads" ? mslsim::DispatchMode::Threads : mslsim::DispatchMode::Threadgroups,
                            {grid[0], grid[1], grid[2]}, {threadgroup[0], threadgroup[1], threadgroup[2]}, options);
      } catch (const mslsim::Error& e) {
        throw mx::RuntimeError(e.what());
      }
    }
    // Refused before anything ran: a mistake in the call, as for the CLI's exit status 2.
    if (result.refused)
      throw py::value_error("mslsim: " + (result.findings.empty() ? std::string("dispatch refused")
                                                                   : result.findings.front().message));
    std::string report;
    for (auto& f : result.findings) {
      if (f.severity == mslsim::Finding::Severity::Error)
        report += p->formatFinding(f) + "\n";
      else
        py::module_::import("sys").attr("stderr").attr("write")("mslsim: " + p->formatFinding(f) + "\n");
    }
    if (!report.empty() && reportFindings)
      py::module_::import("sys").attr("stderr").attr("write")(
          "mslsim: kernel " + kernelName + " has errors (report mode, the results are kept):\n" + report);
    else if (!report.empty())
      throw mx::KernelError("[mslsim] kernel " + kernelName + " failed:\n" + report,
                            mslsim::findingsToJson(kernelName, result.findings));
  }

 private:
  std::shared_ptr<const mslsim::Program> program(bool checked) {
    auto& slot = checked ? checked_ : unchecked_;
    if (!slot) {
      try {
        slot = source_ ? mslsim::Program::compileSource(path_, *source_, options_, checked)
                       : mslsim::Program::compileFile(path_, options_, checked);
      } catch (const mslsim::Error& e) {
        throw mx::RuntimeError(e.what());
      }
    }
    return slot;
  }

  std::string path_;
  std::optional<std::string> source_;
  mslsim::CompileOptions options_;
  std::shared_ptr<const mslsim::Program> unchecked_, checked_;
};

}  // namespace

PYBIND11_MODULE(_mslsim, m) {
  m.doc() = "mslsim's C++ core for the Python module; use `import mslsim`.";

  // mslsim.KernelError carries the structured report: `.report` is the dict of
  // `mslsim run --report-json` (kernel, diagnostics, summary).
  static py::exception<mx::KernelError> kernelError(m, "KernelError", PyExc_RuntimeError);
  kernelError.attr("__module__") = "mslsim";  // tracebacks say mslsim.KernelError
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mx::KernelError& e) {
      py::object error = py::reinterpret_borrow<py::object>(kernelError.ptr())(py::str(e.what()));
      error.attr("report") = py::module_::import("json").attr("loads")(e.json());
      PyErr_SetObject(kernelError.ptr(), error.ptr());
    }
  });
  // mx::ValueError and mx::RuntimeError derive from std::invalid_argument / std::runtime_error,
  // which pybind11 already turns into ValueError / RuntimeError.

  py::class_<PyMetalKernel>(m, "_MetalKernel")
      .def(py::init<std::string, std::vector<std::string>, std::vector<std::string>, std::string,
                    std::string, bool, bool, const std::string&>(),
           py::arg("name"), py::arg("input_names"), py::arg("output_names"), py::arg("source"),
           py::arg("header"), py::arg("ensure_row_contiguous"), py::arg("atomic_outputs"),
           py::arg("math_mode"))
      .def("call", &PyMetalKernel::call, py::arg("inputs"), py::arg("output_shapes"),
           py::arg("output_dtypes"), py::arg("grid"), py::arg("threadgroup"), py::arg("template"),
           py::arg("init_value"), py::arg("verbose"), py::arg("cpu_stream"),
           py::arg("timeout_seconds"), py::arg("checks"), py::arg("workers"), py::arg("suppressions"),
           py::arg("report_findings"), py::arg("progress") = py::none())
      .def_property_readonly("name", [](const PyMetalKernel& k) { return k.spec().name; })
      .def_property_readonly("input_names", [](const PyMetalKernel& k) { return k.spec().inputNames; })
      .def_property_readonly("output_names", [](const PyMetalKernel& k) { return k.spec().outputNames; })
      .def_property_readonly("source", [](const PyMetalKernel& k) { return k.spec().source; })
      .def_property_readonly("header", [](const PyMetalKernel& k) { return k.spec().header; })
      .def_property_readonly("ensure_row_contiguous",
                             [](const PyMetalKernel& k) { return k.spec().ensureRowContiguous; })
      .def_property_readonly("atomic_outputs",
                             [](const PyMetalKernel& k) { return k.spec().atomicOutputs; });

  py::class_<PyLibrary>(m, "_Library")
      .def(py::init<std::optional<std::string>, std::optional<std::string>, std::string, std::vector<std::string>,
                    std::vector<std::string>, std::map<unsigned, double>>(),
           py::arg("path"), py::arg("source"), py::arg("name"), py::arg("include_dirs"), py::arg("defines"),
           py::arg("constants"))
      .def("kernel_names", &PyLibrary::kernelNames)
      .def("dispatch", &PyLibrary::dispatch, py::arg("kernel"), py::arg("bindings"), py::arg("threadgroup_memory"),
           py::arg("grid"), py::arg("threadgroup"), py::arg("mode"), py::arg("checks"), py::arg("timeout_seconds"),
           py::arg("workers"), py::arg("suppressions"), py::arg("report_findings"), py::arg("progress") = py::none());
  m.def("suppression_summary", &suppressionSummary);

  m.def("dtype_size", [](const std::string& name) { return mslsim::dtypeSize(dtypeFromName(name)); });
  m.def("build_info", [] {
    const mslsim::BuildInfo& b = mslsim::buildInfo();
    return std::map<std::string, std::string>{{"version", b.version}, {"commit", b.commit}, {"llvm", b.llvm},
                                              {"text", mslsim::versionText()}};
  });
  m.def("msl_type_name", [](const std::string& name) { return mx::mslTypeName(dtypeFromName(name)); });
}
