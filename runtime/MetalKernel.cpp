// mx.fast.metal_kernel's call: the generated source compiled with MLX's preamble, the inputs and
// outputs bound as MLX binds them, the grid dispatched.
#include <mslsim/mlx.h>

#include <cstring>
#include <iostream>
#include <sstream>

#include "Program.h"
#include "Report.h"

namespace mslsim {
namespace mlx {

namespace {

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
    DispatchOptions dispatch;  // what decides the build: the checks (run below in the default order)
    dispatch.checks = call.checks;
    program = Program::compileSource(path, g.source, options, call.checks.needsInstrumentation(), CodeTier::Optimised,
                                     codePathsFor(dispatch, call.checks.needsInstrumentation()));
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
    bool overflows = false;
    HostArray o;
    o.dtype = call.outputDtypes[i];
    for (auto d : call.outputShapes[i]) {
      o.shape.push_back(uint64_t(d));
      overflows = overflows || (d != 0 && count > UINT64_MAX / uint64_t(d));
      count *= uint64_t(d);
    }
    // As MLX's allocator refuses a buffer larger than the device's (before anything runs).
    uint64_t limit = maxBufferBytes();
    if (overflows || count > limit / dtypeSize(o.dtype)) {
      std::string shape;
      for (auto d : call.outputShapes[i]) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      throw RuntimeError("[metal::malloc] Attempting to allocate " +
                         (overflows ? std::string("more than 2^64") : std::to_string(count * dtypeSize(o.dtype))) +
                         " bytes which is greater than the maximum allowed buffer size of " + std::to_string(limit) +
                         " bytes (output '" + spec_.outputNames[i] + "', shape (" + shape + "))");
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
    options.suppressions = call.suppressions;
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
  if (!report.empty() && call.reportFindings) {
    std::cerr << "mslsim: kernel " << g.name << " has errors (report mode, the outputs are kept):\n" << report;
    return outputs;
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
