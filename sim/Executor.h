// The Metal execution model: a dispatch is a grid of threadgroups; a threadgroup is up to 1024
// threads sharing a ThreadgroupArena; its threads form 32-wide SIMD-groups. Threadgroups run in
// parallel on worker threads. Within a threadgroup, a kernel that never synchronises runs its threads
// one after another; one that does runs each thread as a coroutine (or, as a fallback, a fiber)
// suspended at barriers and SIMD-group functions (the ThreadgroupScheduler).
//
// Nothing here knows about LLVM: a kernel is an entry function `void(void** args)` plus its
// KernelInfo, produced by the JIT.
#pragma once

#include <mslsim/types.h>

#include <array>
#include <functional>
#include <map>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mslsim/kernel_info.h>
#include "SourceIndex.h"

namespace mslsim {

using EntryFunction = void (*)(void** args);
// ThreadScheduling::Coroutines: the entry starts a thread and returns its coroutine handle, whose
// first word is the resume function (null once the thread has finished).
using CoroutineEntryFunction = void* (*)(void** args);

// ThreadScheduling::Sequential, unchecked builds: runs every thread of an sx*sy*sz threadgroup, given
// thread 0's arguments.
using ThreadLoopFunction = void (*)(void** args, uint32_t sx, uint32_t sy, uint32_t sz, uint32_t* thread);

// ThreadScheduling::Coroutines, unchecked builds: resumes every unfinished runnable thread of a
// threadgroup once (see buildRegionLoop).
// Returns bit 0: a resumed thread has not finished; bit 1: resumed threads stopped at different
// suspension points; bit 2: a resumed thread finished; bits 8 and up: the suspension point of the
// first resumed thread that stopped.
using RegionLoopFunction = uint32_t (*)(void* frames, uint64_t stride, uint32_t count, const uint8_t* runnable,
                                        uint32_t* thread);
// A kernel's SIMD-group function (vectoriseSimdGroup): runs the lanes of SIMD-group `simdgroup` of
// an sx*sy*(count/(sx*sy)) threadgroup as vector lanes, given thread 0's arguments. Kernels with
// barriers get a coroutine (SimdGroupCoroutine, suspended at each barrier, one frame per
// SIMD-group), the others a plain function.
using SimdGroupEntry = void (*)(void** args, uint32_t simdgroup, uint32_t sx, uint32_t sy, uint32_t count);
using SimdGroupCoroutine = void* (*)(void** args, uint32_t simdgroup, uint32_t sx, uint32_t sy, uint32_t count);
// With a region loop over the SIMD-groups' frames (SimdGroupFunction::regionLoop): starts the
// coroutines of a threadgroup's `groups` SIMD-groups, in frames handed out by index.
using SimdGroupStartsFunction = void (*)(void** args, uint32_t sx, uint32_t sy, uint32_t count, uint32_t groups);

// The threadgroup_barrier a suspension point follows, as its hook call named it.
struct RegionBarrier {
  std::string file;
  unsigned line = 0, column = 0;
  unsigned flags = 0;  // mem_flags
};
struct RegionLoopLayout {
  uint64_t indexOffset = 0;  // where a coroutine frame holds the index of the suspension point
  unsigned indexBytes = 1;
  uint32_t indexMask = 0xFF;  // 0: a single suspension point, no index
  bool recordsThreads = false;  // the hooks record each thread's wait (SIMD-group functions)
  // Barrier-only kernels: by suspension index, the barrier each thread waiting there waits at, so
  // that checks (sync, and the observers' barrier events) can run with the region loop. Empty
  // when some suspension point could not be traced to its barrier: checked runs then resume the
  // threads one by one.
  std::vector<RegionBarrier> barriers;
  // A SIMD-group function's coroutine: the index of the point where it waits before it first runs
  // (its entry in `barriers` is no barrier).
  std::optional<uint32_t> startIndex;
};

struct SimdGroupFunction {
  bool suspends = false;  // a coroutine
  // A coroutine whose only hooks are threadgroup barriers: the JIT'd loop that runs a region of
  // every SIMD-group (buildRegionLoop), and where the frames say each one waits.
  std::optional<RegionLoopLayout> regionLoop;
};

// How the threads of one threadgroup take turns.
enum class ThreadScheduling : uint8_t {
  Sequential,  // the kernel never synchronises: each thread runs to its end, one after another
  Coroutines,  // a thread suspends at each barrier or SIMD-group function and is resumed by a call
  Fibers,      // each thread has its own stack, switched at barriers and SIMD-group functions: the
               // fallback when synchronisation hides behind a call that could not be inlined
};
const char* threadSchedulingName(ThreadScheduling s);
// Whether a built-in differs between the threads of one threadgroup (thread_position_in_grid,
// thread_index_in_simdgroup, ...) rather than being the same for all (threads_per_grid, ...).
bool variesPerThread(BuiltinValue v);  // "sequential", "coroutines", "fibers"

enum class AccessOp : uint8_t { Load, Store, AtomicRMW, AtomicLoad, AtomicStore };
inline bool isWrite(AccessOp op) { return op == AccessOp::Store || op == AccessOp::AtomicRMW || op == AccessOp::AtomicStore; }
inline bool isAtomic(AccessOp op) { return op >= AccessOp::AtomicRMW; }
const char* accessOpName(AccessOp op);  // "read", "write", "atomic", ...

// One instrumented memory access in the kernel's code (checked runs only).
struct AccessSite {
  AccessOp op = AccessOp::Load;
  SourcePosition where;          // the user's file:line:column
  int param = -1;                // the pointer derives from this kernel parameter, if known
  int64_t threadgroupOffset = -1;  // or from this offset in the threadgroup arena, if known
  // Or from a thread-private array (or program-scope constant), checked inline: its name and size.
  std::string privateObject;
  uint64_t privateBytes = 0, privateElementSize = 1;
  bool privateIsConstant = false;  // a program-scope `constant` object rather than a local array
  // A load or store of a vector type: the alignment of that type (16 for a float4), for the
  // alignment check; 0 for other accesses.
  uint32_t vectorAlign = 0;
  std::string vectorType;  // "<4 x float>", for the report
};

struct ThreadgroupVariable {
  std::string name;
  uint64_t offset = 0, size = 0;  // in the threadgroup arena
  uint64_t elementSize = 1;       // of the innermost array element
};


// How much work code generation puts into a kernel (docs/architecture.md, "Code tiers"). Both
// tiers compute the same bytes and report the same findings; they differ in how long the code
// takes to make and to run.
enum class CodeTier : uint8_t {
  // The kernel's entry alone, lightly optimised, fast instruction selection: ready in a fraction
  // of the time. Threads run one by one, or on fibers when the kernel synchronises.
  Quick,
  // -O2, with thread loops, coroutines and region loops, SIMD-groups as vector lanes: made for
  // dispatches big enough to pay for it.
  Optimised,
};
const char* codeTierName(CodeTier t);  // "quick", "optimised"

// Which execution paths an optimised build makes code for (docs/architecture.md, "Only the paths a
// dispatch needs"). Both compute the same bytes; a dispatch runs a SIMD-group at a time as vector
// lanes when runsAsVectorLanes says so, else its threads one by one.
enum class CodePaths : uint8_t {
  // For a kernel the vectoriser takes, its vector lanes alone: what a dispatch in the default order
  // under the default checks runs (the per-thread code was half of MLX's GEMM compile). Every
  // other kernel gets its per-thread code.
  Default,
  // Every kernel's threads one by one, no vector lanes: what races, uninit, align, simd, tracing,
  // the other schedules and `--simd-lanes threads` run. Made when a dispatch first needs it.
  PerThread,
};

// A kernel ready to run: what the front end described and what the JIT produced.
struct ExecutableKernel {
  KernelInfo info;
  CodeTier tier = CodeTier::Optimised;
  // The per-thread code: `entry` (and the thread and region loops) exist. Without it (a Default
  // build's vector-lane kernel), a dispatch that runs threads one by one takes the kernel that
  // `withPerThreadCode` returns: the same kernel built with CodePaths::PerThread.
  bool perThreadCode = true;
  std::function<const ExecutableKernel&()> withPerThreadCode;
  EntryFunction entry = nullptr;
  uint64_t staticThreadgroupBytes = 0;  // `threadgroup` variables declared in the kernel
  ThreadScheduling scheduling = ThreadScheduling::Fibers;
  bool hasThreadLoop = false;
  ThreadLoopFunction threadLoop = nullptr;  // when hasThreadLoop, once loaded
  std::optional<RegionLoopLayout> regionLoopLayout;
  RegionLoopFunction regionLoop = nullptr;  // when regionLoopLayout, once loaded
  std::optional<SimdGroupFunction> simdGroupFunction;
  void* simdGroups = nullptr;  // when simdGroupFunction, once loaded: SimdGroupEntry or SimdGroupCoroutine
  RegionLoopFunction simdGroupRegions = nullptr;  // when simdGroupFunction->regionLoop, once loaded
  SimdGroupStartsFunction simdGroupStarts = nullptr;  // the same
  std::shared_ptr<void> owner;          // keeps the JIT'd code alive
  // Checked builds: the instrumented access sites, the threadgroup variables, the user's files.
  bool instrumented = false;
  std::shared_ptr<const std::vector<AccessSite>> sites;
  std::vector<ThreadgroupVariable> threadgroupVariables;
  std::shared_ptr<const SourceIndex> sources;
};


// Metal's limits on the machine mslsim models (Apple GPUs of the M1 generation and later).
constexpr uint32_t kMaxThreadsPerThreadgroup = 1024;
constexpr uint64_t kMaxThreadgroupMemoryBytes = 32 * 1024;
constexpr uint32_t kSimdWidth = 32;

// Per-dimension geometry of a dispatch, and the built-in values it implies.
class DispatchGeometry {
 public:
  DispatchGeometry(DispatchMode mode, Size3 grid, Size3 threadgroup);

  Size3 threadgroupCount() const { return groups_; }
  Size3 requestedThreadgroupSize() const { return tg_; }
  Size3 threadsPerGrid() const { return threadsPerGrid_; }
  // The actual size of the threadgroup at `group` (smaller at the edges in Threads mode).
  Size3 threadgroupSize(Size3 group) const;
  uint64_t totalThreadgroups() const { return uint64_t(groups_[0]) * groups_[1] * groups_[2]; }
  Size3 groupAt(uint64_t linear) const;

  // Writes the value of `builtin` for the thread at `local` in `group` into `out` as `components`
  // components of `componentSize` bytes each (the layout of uint, ushort2, uint3, ...).
  void writeBuiltin(BuiltinValue builtin, Size3 group, Size3 groupSize, Size3 local,
                    uint32_t linearInGroup, unsigned components, unsigned componentSize,
                    void* out) const;

 private:
  DispatchMode mode_;
  Size3 tg_, groups_, threadsPerGrid_;
};


// One argument binding, by parameter position (ArgumentInfo::position).
struct BoundArgument {
  void* buffer = nullptr;             // Buffer role: the device address
  // The allocation behind `buffer` (for bounds checks): it may start before `buffer` (a view with
  // negative strides) and ends at regionBegin + regionBytes.
  const void* regionBegin = nullptr;
  uint64_t regionBytes = 0;
  bool uninitialized = false;         // the host never wrote it (MLX outputs without init_value)
  uint64_t threadgroupBytes = 0;      // ThreadgroupMemory role: size requested at dispatch
};


struct DispatchRequest {
  const ExecutableKernel* kernel = nullptr;
  DispatchMode mode = DispatchMode::Threads;
  Size3 grid{1, 1, 1};
  Size3 threadgroup{1, 1, 1};
  std::vector<BoundArgument> arguments;  // one per kernel parameter
  DispatchOptions options;  // only checks the kernel was instrumented for can run
};

// Whether the dispatch runs the kernel's SIMD-groups as vector lanes (the kernel has them; the
// default order; no check, trace or watch that must see every access or each lane at SIMD-group
// functions), or its threads one by one. The one place that decides.
bool runsAsVectorLanes(const ExecutableKernel& kernel, const DispatchOptions& options);
// The build whose code every dispatch with `options` runs, for a caller that knows them before it
// compiles (the CLI's run: one build where a Default one would make the per-thread one too).
CodePaths codePathsFor(const DispatchOptions& options, bool checked);

struct DispatchResult {
  bool completed = false;  // every thread ran to its end
  bool refused = false;    // the request broke a limit of Metal's and nothing ran (the finding says which)
  std::vector<Finding> findings;
  double milliseconds = 0;
  // CPU time of the thread that waited for the workers (the watchdog, the progress calls): what
  // watching a dispatch costs beside running it.
  double waitingCpuMilliseconds = 0;
  // How the threads ran ("thread loop", "threads one by one", "region loop", "vector lanes",
  // "vector lanes, a call per SIMD-group", "coroutines", "fibers"; docs/architecture.md,
  // "Executor"), or "" when no threadgroup ran.
  std::string path;
  std::map<unsigned, std::vector<ElementWriter>> writers;  // by [[buffer(n)]], with trackWriters
  bool hasErrors() const {
    for (auto& f : findings)
      if (f.severity == Finding::Severity::Error) return true;
    return false;
  }
};

// Validates the request against Metal's limits (a returned error means nothing ran) and runs it.
DispatchResult dispatch(const DispatchRequest& request);

}  // namespace mslsim
