// IR transformations that give the front end's C++-shaped module Metal's execution semantics.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/PassManager.h>

#include "Executor.h"
#include "SourceIndex.h"

namespace llvm {
class Module;
class Function;
class DILocation;
class Loop;
class PassBuilder;
class TargetLibraryInfoImpl;
class TargetMachine;
}  // namespace llvm

namespace mslsim {

// LLVM's four analysis managers, registered with `passes` and linked to each other, with
// `library` as the target library information (registered first, so the default does not win).
struct AnalysisManagers {
  AnalysisManagers(llvm::PassBuilder& passes, llvm::TargetLibraryInfoImpl& library);
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
};

// Moves every `threadgroup` variable (a global annotated "msl_threadgroup_memory" by the front end)
// into the per-threadgroup arena: each use becomes arena base + offset, the base coming from the
// simulator for the running threadgroup. Variables of one kernel never overlap; variables of
// different kernels may share offsets.
struct ThreadgroupLayout {
  uint64_t bytes = 0;                           // arena bytes the kernel's variables need
  std::vector<ThreadgroupVariable> variables;   // the variables it can reach
};
std::map<std::string, ThreadgroupLayout> lowerThreadgroupMemory(llvm::Module& module,
                                                                const std::string& entryPrefix);

// For checked runs, after optimisation: a call `__mslsim_access(address, size, site)` at every
// load, store, atomic and memory transfer that may touch device, constant or threadgroup memory
// (private stack memory and constant globals are left alone). Each site records the operation,
// the user's source position (through inlined frames, columns mapped by `sources`), and where
// the pointer comes from when that is known statically (a kernel parameter, a threadgroup
// variable), so bounds are checked against the allocation the pointer belongs to.
std::vector<AccessSite> instrumentMemoryAccesses(llvm::Module& module, const std::string& entryPrefix,
                                                 const std::map<std::string, std::string>& kernelOfEntry,
                                                 const std::vector<KernelInfo>& kernels,
                                                 const SourceIndex& sources);

// Vector loads and stores (and copies of objects holding vectors) assume only their element's
// alignment: Apple GPUs execute a float4 access through a pointer that is 4-byte aligned (ggml's
// kernel_mul_mm writes result rows of any width through `device float4*`), which an aligned SSE
// move would turn into a fault.
void relaxVectorAlignment(llvm::Module& module);

// A bool copied from memory to memory keeps its byte, as on Apple's GPUs (MLX's `view` tests copy
// int32 bytes through bool arrays). Clang loads a bool as `trunc (load i8 !range [0, 2))` and
// stores `zext` of it; the optimised pipeline's InstCombine makes that the loaded byte, given the
// range, and the quick tier, which has no InstCombine, does the same here: otherwise the two tiers
// would store different bytes for a byte that is neither 0 nor 1. Run after SROA.
void keepBoolBytes(llvm::Module& module);

// Removes the llvm.var.annotation calls Clang emits for annotated parameters and locals (the
// front end's msl_* attributes): they serve the front end only, and they keep SROA from promoting
// those variables to registers.
void stripVariableAnnotations(llvm::Module& module);

// After optimisation: a cheap check of the cancel flag at every loop header, so a dispatch that
// exceeds its timeout can abandon threads stuck in endless loops; the poll names the loop's
// position in the user's source where the IR has it, for the timeout report. In a polling loop (its
// exits depend on values read from memory in the loop and on nothing the loop carries from one
// iteration to the next) each such read also reports its address and value while the flag is set,
// so that a thread spinning on memory nobody writes can be told from a long computation.
void insertCancellationPolls(llvm::Module& module, const SourceIndex& sources);

// The user's position of a debug location: the innermost frame (through inlining) in a user file;
// empty when none is.
SourcePosition userPosition(const llvm::DILocation* location, const SourceIndex& sources);

// "FILE:LINE:COL: error: MESSAGE" with the source line and a caret ("error: MESSAGE" without a
// position): compile errors found in the IR, in the front end's format.
std::string locatedError(const SourcePosition& where, const SourceIndex& sources, const std::string& message);


// Program-scope variables whose initialisers C++ could not fold (`constant uint3 size = uint3(1u);`,
// as SPIR-V Cross writes: our vector constructors are not constexpr) get a dynamic initialiser
// that nothing would run. Evaluates each global constructor at compile time, as Apple's compiler
// folds these, with LLVM's Evaluator (what GlobalOpt uses), stores the results as the variables'
// initial values and drops the constructor; one that cannot be evaluated stays (the host boundary
// then refuses it).
void evaluateGlobalConstructors(llvm::Module& module);

// Whether `entry` can reach a barrier or a SIMD-group function (an indirect call counts as yes).
bool reachesSynchronisation(llvm::Function& entry);

// Before the coroutine lowering, on an entry whose hooks have been inlined into it: lanes of a
// SIMD-group that took different branches wait at different SIMD-group function calls, and the
// simulator must let the lanes that are behind go first (on the GPU they run while the others wait
// to reconverge). Source order says who is behind except across iterations of a loop: a lane that
// went round again and waits at a call early in the loop is ahead of one still at a call late in
// the previous iteration. So each loop that contains a SIMD-group call counts its iterations, and
// each call first tells the simulator the loops around it and their counts
// (hook::kSimdLoopPosition): the simulator compares threads by their iteration counts first.
void insertSimdLoopPositions(llvm::Function& entry);

// Loops of kernels lowered to coroutines lose their debug information (see
// lowerSynchronisationToCoroutine); their instructions keep the loop's position in this metadata:
// its inlining chain, innermost frame first, each {directory, file, line, column}.
constexpr const char* kLoopPositionKind = "mslsim.loop";

// Drops `f`'s debug information, keeping each loop's source position on the loop's instructions
// as metadata (what the cancellation polls name in a timeout report).
void stripDebugInfoKeepingLoopPositions(llvm::Function& f);

// Before optimisation, on an entry `void(void** args)` whose synchronisation hooks have all been
// inlined into it: turns it into an LLVM switch-resumed coroutine `void*(void** args)` that
// suspends after each barrier or SIMD-group hook, so a thread waiting at a barrier costs a return
// and a resume call instead of a stack switch. LLVM's coroutine passes (part of the -O2 pipeline)
// split it into ramp and resume functions and keep values live across a suspension in the frame,
// which the simulator provides per thread (hook::kCoroutineFrame). Returns the new function, or
// null (and leaves `entry` alone) when a synchronisation point is reached through a call that could
// not be inlined: such kernels run on fibers.
// With suspendAtStart, the coroutine suspends before its body (its first call only sets the frame
// up): the body is compiled once, in the resume function, rather than up to the first suspension
// point in the ramp too.
llvm::Function* lowerSynchronisationToCoroutine(llvm::Function& entry, bool suspendAtStart = false);

// For a kernel that never synchronises, in an unchecked build: `void name(void** args, u32 sx,
// u32 sy, u32 sz, u32* thread)` runs every thread of an sx*sy*sz threadgroup by calling `entry` (inlined) in
// nested loops over z, y and x. `args` are thread 0's, as the simulator bound them; the built-ins
// that vary per thread are computed in the loop; for a coroutine's ramp, *thread holds the running
// thread's index. Consecutive threads in the innermost loop let
// LLVM's loop vectoriser run several threads per vector instruction, as CPU OpenCL drivers do.
// After the coroutine split, in an unchecked build: `void name(void* frames, u64 stride, u32 count,
// u8* runnable, u32* thread)` resumes each of `count` threads whose frames lie `stride` bytes apart,
// skipping finished ones and those whose runnable byte is 0, with the resume function inlined: one
// call runs a region between synchronisation points for the whole threadgroup (POCL's "work-item
// loops", with the coroutine frames as the context arrays). Kernels with SIMD-group functions keep
// their hooks, which record each thread's wait (*thread says which); in kernels whose only
// synchronisation is threadgroup_barrier the hooks go, and the scheduler reads where each thread
// stopped from its frame. A SIMD-group function's coroutine (`startsSuspended`: the ramp only sets
// up its frame) gets the same loop over its SIMD-groups' frames, when it has no hooks to record.
std::optional<RegionLoopLayout> buildRegionLoop(llvm::Function& ramp, const std::string& name,
                                                bool startsSuspended = false);

// Lets LLVM's loop vectoriser call glibc's libmvec for the libm functions it implements (see
// vectorisableMathFunctions); the JIT maps the names.
void enableVectorMath(llvm::Module& module);
const std::vector<std::string>& vectorisableMathFunctions();

// The one libmvec variant every math call uses: its ISA letter ('b' SSE, 'd' AVX2, 'e' AVX-512)
// and lanes.
struct VectorMathVariant {
  char isa = 'b';
  unsigned lanes = 4;
  std::string name(const std::string& scalar) const;  // "_ZGVdN8v_tanhf"
};
// After optimisation: every remaining call to a vectorisable math function (vectorisableMathFunctions
// or the llvm.exp/log/sin/cos/pow intrinsics that stand for them), scalar or vector of another
// width, goes to `variant` (splat or padded into its lanes). libmvec and libm, and libmvec's SSE,
// AVX2 and AVX-512 versions, differ in the last bits: with one implementation for every call, a
// kernel computes the same bits in every execution path (vectorised or not, loop body or remainder).
void useOneVectorMathVariant(llvm::Module& module, const VectorMathVariant& variant);

// Last before code generation: each masked load, store, gather or scatter that the target would
// scalarise (x86 without AVX-512: every scatter) becomes a call to one out-of-line copy per kind,
// type and alignment, so that 32 conditional blocks are made once, not at every access
// (OutlineScalarisedAccesses.cpp).
void outlineScalarisedAccesses(llvm::Module& module, llvm::TargetMachine& tm);

// In the quick tier, whose synchronising entries run on fibers: a simdgroup_matrix product's
// exchange of operands and its arithmetic become one hook (hook::kSimdMmaExchange), which the
// simulator resolves once for the SIMD-group (FuseMatrixExchanges.cpp).
void fuseMatrixExchanges(llvm::Function& entry);

// Bounds-check elimination by loop versioning, for checked builds (a function pass the optimiser
// runs just before the loop vectoriser). In an innermost loop, an access whose address moves by a
// fixed stride from one iteration to the next (in a loop over a threadgroup's threads, `a[gid]`)
// lies in its filter range on every iteration when it does on the first and the last: one test
// before the loop decides whether the loop runs as a copy without those checks, which the
// vectoriser can take, or as the checked original. Then every remaining hook::kInRange call
// becomes its compare.
// Strides may be values the loop does not change (`i += threads_per_threadgroup`); trip counts
// SCEV finds only under conditions (no wrap-around) have those conditions join the test.
struct RangeCheckVersioningPass : llvm::PassInfoMixin<RangeCheckVersioningPass> {
  // Which innermost loops may be versioned (all when empty).
  std::function<bool(const llvm::Loop&)> mayVersion;
  // In which functions the loops' own tests of a counter against a bound (`if (gid < n)` in a loop
  // over threads) join the condition too, where they hold on the first and the last iteration: the
  // copy runs without them, which the loop vectoriser then takes without masks (masked loads and
  // stores cost an element-wise add 3x on AMD's Zen 4). None when empty.
  std::function<bool(const llvm::Function&)> guardsIn;
  // Only those tests: a second run after LICM, for checked builds, where the bound (`constant
  // uint& n`) is read behind its own check in the loop until the first run's copy frees it.
  bool guardsOnly = false;
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& analyses);
};
// The slot a checked store's value is passed to its hook in (instrumentMemoryAccesses) escapes to
// the hook, so the lifetime markers the inliner puts around it count as writes to memory anything
// may point to: they keep loads from leaving a loop (LICM) even where the copy without checks no
// longer uses the slot. This drops them (the slot is written before each use and read only by the
// hook call right after).
constexpr const char* kHookSlotKind = "mslsim.hook_slot";
struct DropHookSlotLifetimesPass : llvm::PassInfoMixin<DropHookSlotLifetimesPass> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& analyses);
};

// In checked builds, after the SIMD-group function is made (which keeps the hook): each hook call of
// a plain read of a threadgroup variable, of up to 4 bytes, first tests inline what the hook would
// test first, whether the executor settled the read for every thread or for the running thread's
// SIMD-group (ThreadgroupScheduler's read tags; the table after the site filters, hook::kAccessFilter). A checked tiled GEMM's tile reads
// then go without a call. `sites`: the module's access sites (instrumentMemoryAccesses).
void addSettledReadTests(llvm::Function& f, const std::vector<AccessSite>& sites);

// In checked builds, after addSettledReadTests: each hook call of a plain 4-byte store through a
// kernel parameter first tries the claim the executor may publish for its site (the table after
// the settled-read entries, hook::kAccessFilter; ExecutionObserver::storeClaim): inside the
// claim's range, a compare-and-swap of the 8-byte word at `bias + (address & ~3) * 2` from zero to
// `tag | (first thread of the threadgroup + running thread) << shift`; the store goes ahead
// without the hook when it succeeds. An empty range (every path but the checked thread loop): the
// hook, as before. A checked element-wise kernel's every store.
void addStoreClaims(llvm::Function& f, const std::vector<AccessSite>& sites);

// Each masked vector load or store (the lane vectoriser's, the loop vectoriser's under an `if`)
// becomes a test of its mask: the plain load or store when every lane takes part, the masked one
// otherwise. A masked load that misses the cache is slow on some x86 cores (the simd_sum
// reduction over 64 MB took twice as long with masked loads of whole SIMD-groups on an EPYC).
void unmaskWholeAccesses(llvm::Module& module);

// After the optimiser (sim/LaneMaskElements.cpp): a load or store of one lane of a lane mask in
// memory (a <N x i1> a coroutine frame keeps across a barrier) through `gep <N x i1>, %mask, 0,
// %lane` reads or writes bit %lane of the mask. LLVM 16's VectorCombine makes such a GEP of an
// extractelement of the loaded mask where extracting a lane costs more than a load (x86 without
// AVX-512), and a GEP steps over i1 elements a byte at a time, while the mask's lanes are bits: a
// threadgroup histogram in vector lanes read lanes 0, 1 and 4 active of 32 and lost the other
// atomic adds on an AVX2 EPYC (testsuite/cases/lane_mask_kept_across_a_barrier).
void repairMaskElementAccesses(llvm::Module& module);

// Writes out the compare each hook::kInRange call stands for (what the pass above leaves, in
// functions it did not see).
void lowerRangeChecks(llvm::Module& module);
void lowerRangeChecks(llvm::Function& f);

// The symbols of the loops built around a kernel: kThreadLoopPrefix + name (buildThreadLoop),
// kRegionLoopPrefix + name (buildRegionLoop), kSimdGroupRegionsPrefix + name (the same over a
// SIMD-group function's frames).
constexpr const char* kThreadLoopPrefix = "__mslsim_loop.";
constexpr const char* kRegionLoopPrefix = "__mslsim_regions.";
constexpr const char* kSimdGroupRegionsPrefix = "__mslsim_lanes_regions.";
constexpr const char* kSimdGroupStartsPrefix = "__mslsim_lanes_starts.";

// A loop over a threadgroup's threads (ThreadLoopFunction) calling `entry` for each. With
// `recordThread` (and always for a coroutine ramp) each iteration first writes the thread's index
// to the loop's thread slot, so that the hooks (the checks' slow paths) know which thread calls.
llvm::Function* buildThreadLoop(llvm::Function& entry, const KernelInfo& info, const std::string& name,
                                bool recordThread = false);

// Inlines every call of `callee` in `caller`; then, with dropBarrierHooks, removes the threadgroup
// barrier hook calls of `caller` (in a region loop's threadgroups, a barrier-only kernel's hooks
// have nothing to record). False if a call could not be inlined.
bool inlineCalls(llvm::Function& caller, llvm::Function& callee, bool dropBarrierHooks);

// In a loop over a threadgroup's coroutine starts (buildThreadLoop of a ramp, the ramp inlined):
// thread i's frame is computed from i and the frames' base (hook::kCoroutineFrames) instead of a
// hook call per thread.
void handOutFramesByIndex(llvm::Function& starts);

// `void name(void** args, u32 sx, u32 sy, u32 count, u32 groups)`: starts the coroutine of each of
// a threadgroup's `groups` SIMD-groups (the SIMD-group function's ramp inlined), SIMD-group g's
// frame the g-th of the frames' base. Null if the ramp cannot be inlined.
llvm::Function* buildSimdGroupStarts(llvm::Function& ramp, const std::string& name);

}  // namespace mslsim
