#include "Jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/Scalar/ADCE.h>
#include <llvm/Transforms/Scalar/DCE.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/Timer.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>

#include <unistd.h>

#include "Hooks.h"
#include "HostBoundary.h"
#include "IrPasses.h"
#include "LaneVectoriser.h"

namespace mslsim {

namespace {

constexpr const char* kEntryPrefix = "__mslsim_entry.";

std::string threadLoopSymbol(const std::string& entrySymbol) { return kThreadLoopPrefix + entrySymbol.substr(std::strlen(kEntryPrefix)); }
std::string regionLoopSymbol(const std::string& entrySymbol) { return kRegionLoopPrefix + entrySymbol.substr(std::strlen(kEntryPrefix)); }
std::string simdGroupSymbol(const std::string& entrySymbol) { return kSimdGroupPrefix + entrySymbol.substr(std::strlen(kEntryPrefix)); }
// The largest SIMD-group function (instructions of its resume function) that also gets a loop
// over its SIMD-groups' frames: MLX's softmax and reductions are a few hundred, its GEMMs thousands.
constexpr unsigned kSimdGroupRegionLoopLimit = 3000;
std::string simdGroupRegionsSymbol(const std::string& entrySymbol) { return kSimdGroupRegionsPrefix + entrySymbol.substr(std::strlen(kEntryPrefix)); }
std::string simdGroupStartsSymbol(const std::string& entrySymbol) { return kSimdGroupStartsPrefix + entrySymbol.substr(std::strlen(kEntryPrefix)); }

// Clears ArgumentInfo::used for the parameters the optimised code of a kernel never reads. Its
// functions that take the argument table (`void** args`, one slot per parameter position: the
// entry, which also starts coroutines, and the thread loop) read slot i by a load from args + i;
// a slot whose loaded value nothing uses, or that nothing loads, is unread. Any other use of the
// table counts as reading every slot.
// The slots read, or nullopt when the table escapes.
std::optional<std::set<uint64_t>> argumentsRead(llvm::Module& module, std::initializer_list<std::string> functions) {
  std::set<uint64_t> read;
  const llvm::DataLayout& layout = module.getDataLayout();
  for (const std::string& name : functions) {
    llvm::Function* f = module.getFunction(name);
    if (!f || f->isDeclaration() || f->arg_empty()) continue;
    std::vector<std::pair<llvm::Value*, uint64_t>> work{{f->getArg(0), 0}};
    while (!work.empty()) {
      auto [value, offset] = work.back();
      work.pop_back();
      for (llvm::User* user : value->users()) {
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(user)) {
          if (!load->use_empty()) read.insert(offset / layout.getPointerSize());
          continue;
        }
        if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(user)) {
          llvm::APInt delta(64, 0);
          if (gep->getPointerOperand() == value && gep->accumulateConstantOffset(layout, delta)) {
            work.push_back({gep, offset + delta.getZExtValue()});
            continue;
          }
        }
        return std::nullopt;  // the table escapes: every argument counts as read
      }
    }
  }
  return read;
}

void markUnreadArguments(const std::optional<std::set<uint64_t>>& read, KernelInfo& info) {
  for (ArgumentInfo& a : info.arguments) a.used = !read || read->count(a.position) > 0;
}

// Whether `f` calls a SIMD-group or quad-group function (their hooks, inlined into it).
bool callsSimdGroupFunctions(llvm::Function& f) {
  for (llvm::Instruction& inst : llvm::instructions(f))
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
      if (llvm::Function* callee = call->getCalledFunction())
        if (callee->getName() == hook::kSimdExchange || callee->getName() == hook::kSimdgroupBarrier) return true;
  return false;
}

// The libmvec variant of the host: the widest its CPU runs.
VectorMathVariant hostVectorMathVariant(llvm::TargetMachine& tm) {
  const llvm::MCSubtargetInfo* subtarget = tm.getMCSubtargetInfo();
  if (subtarget->checkFeatures("+avx512f")) return {'e', 16};
  if (subtarget->checkFeatures("+avx2")) return {'d', 8};
  return {'b', 4};
}

struct Optimised {
  std::map<std::string, ThreadScheduling> scheduling;           // by entry symbol
  std::map<std::string, RegionLoopLayout> regionLoops;          // by entry symbol
  std::map<std::string, SimdGroupFunction> simdGroups;          // by entry symbol
  // The argument slots read by the kernels whose per-thread entry a Default build drops (the
  // vector lanes' coroutine keeps the table in its frame, where argumentsRead cannot follow it).
  std::map<std::string, std::optional<std::set<uint64_t>>> argumentsRead;  // by entry symbol
};

// For developers of mslsim: with MSLSIM_TIME_PASSES=1, a compile prints to stderr where its time
// went: each of the simulator's steps (-O2 as one) and each pass of the code generator.
bool timingPasses() {
  static const bool on = [] {
    const char* v = std::getenv("MSLSIM_TIME_PASSES");
    return v && *v == '1';
  }();
  return on;
}

// Times one of the simulator's steps of a compile under MSLSIM_TIME_PASSES.
struct StepTimer {
  explicit StepTimer(llvm::StringRef name) : timer(name, name, "mslsim", "mslsim's compile steps", timingPasses()) {}
  llvm::NamedRegionTimer timer;
};

void initialiseLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

// -O2, after two preparations on IR where every function has been inlined into its kernel:
// kernels that synchronise become coroutines (see lowerSynchronisationToCoroutine), and for
// checked builds `instrument` runs on IR where scalars have been promoted out of memory but nothing
// else changed: accesses still carry their own source line and are traceable to the parameter or
// threadgroup variable they use. (After InstCombine and SimplifyCFG, loads from two buffers in an
// if/else become one load through a merged pointer with no line.) Returns how each entry's threads
// are to be scheduled.
Optimised optimise(llvm::Module& module, llvm::TargetMachine& tm, CodeTier tier, CodePaths paths,
                   const std::vector<KernelInfo>& kernels, const std::function<void(llvm::Module&)>& instrument,
                   const std::shared_ptr<const std::vector<AccessSite>>& sites) {
  const bool quick = tier == CodeTier::Quick;
  llvm::PipelineTuningOptions tuning;
  // Checked builds keep every access a plain load or store the checkers see, but for loops whose
  // checks RangeCheckVersioningPass proved for every iteration: those run as a vectorisable copy.
  // The SLP vectoriser merges no access a check guards (each sits in a block of its own, after its
  // check); in the SIMD-group functions it makes vector code of the scalar trees the lanes share
  // (a simd_sum's pairwise sums: the checked simd_sum reduction 26 -> 20 ms on one worker).
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  // Passes skip `optnone` functions only through this instrumentation: the second -O2 run below
  // uses it to leave the functions the first run optimised alone.
  llvm::PassInstrumentationCallbacks instrumentations;
  llvm::OptNoneInstrumentation skipOptNone(/*DebugLogging=*/false);
  skipOptNone.registerCallbacks(instrumentations);
  // Under MSLSIM_TIME_PASSES, each pass of the -O2 runs too, by name (outermost pass managers'
  // time includes their passes'). LLVM's own TimePassesHandler crashes with OptNoneInstrumentation.
  struct PassTimes {
    std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> running;
    std::map<std::string, double> seconds;
    ~PassTimes() {
      std::vector<std::pair<double, std::string>> byTime;
      for (auto& [name, t] : seconds) byTime.push_back({t, name});
      std::sort(byTime.rbegin(), byTime.rend());
      for (size_t i = 0; i < byTime.size() && i < 25; ++i)
        llvm::errs() << llvm::format("%9.3f s  ", byTime[i].first) << byTime[i].second << "\n";
    }
  };
  std::optional<PassTimes> passTimes;
  if (timingPasses()) {
    passTimes.emplace();
    instrumentations.registerBeforeNonSkippedPassCallback([&](llvm::StringRef name, llvm::Any) {
      passTimes->running.push_back({name.str(), std::chrono::steady_clock::now()});
    });
    auto after = [&](llvm::StringRef) {
      if (passTimes->running.empty()) return;
      auto [name, start] = passTimes->running.back();
      passTimes->running.pop_back();
      passTimes->seconds[name] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    instrumentations.registerAfterPassCallback([after](llvm::StringRef name, llvm::Any, const llvm::PreservedAnalyses&) { after(name); });
    instrumentations.registerAfterPassInvalidatedCallback([after](llvm::StringRef name, const llvm::PreservedAnalyses&) { after(name); });
  }
  llvm::PassBuilder pb(&tm, tuning, std::nullopt, &instrumentations);
  // Loops over a threadgroup's threads are versioned on their checks (checked builds) and on the
  // kernel's own `if (gid < n)` (all builds), each where it holds for the first and last thread.
  auto threadLoops = [](const llvm::Function& f) { return f.getName().startswith(kThreadLoopPrefix); };
  pb.registerVectorizerStartEPCallback([threadLoops, checked = bool(instrument)](llvm::FunctionPassManager& passes,
                                                                                 llvm::OptimizationLevel) {
    RangeCheckVersioningPass versioning;
    versioning.guardsIn = threadLoops;
    passes.addPass(std::move(versioning));
    // The copy's checks and guards are constants now: fold their branches away.
    passes.addPass(llvm::InstCombinePass());
    passes.addPass(llvm::SimplifyCFGPass());
    if (checked) {
      // Reads the copy no longer checks leave the loop, and a guard on them can go too.
      passes.addPass(DropHookSlotLifetimesPass());
      passes.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
      RangeCheckVersioningPass guards;
      guards.guardsIn = threadLoops;
      guards.guardsOnly = true;
      passes.addPass(std::move(guards));
      passes.addPass(llvm::InstCombinePass());
      passes.addPass(llvm::SimplifyCFGPass());
    }
  });
  // libm calls the vectoriser may replace by glibc's libmvec variant for the host (4 lanes SSE, 8
  // AVX2 or 16 AVX-512), which is within MSL's precise-math error bounds (checked by
  // tests/conformance); every other call is sent to it after optimisation (useOneVectorMathVariant).
  llvm::TargetLibraryInfoImpl libraryInfo(tm.getTargetTriple());
  std::vector<std::string> vectorNames;  // VecDesc holds StringRefs
  std::vector<llvm::VecDesc> vectorFunctions;
  {
    // One width only (useOneVectorMathVariant rewrites every other call to it).
    VectorMathVariant variant = hostVectorMathVariant(tm);
    for (const std::string& name : vectorisableMathFunctions()) vectorNames.push_back(variant.name(name));
    for (size_t i = 0; i < vectorNames.size(); ++i)
      vectorFunctions.push_back({vectorisableMathFunctions()[i], vectorNames[i], llvm::ElementCount::getFixed(variant.lanes)});
    libraryInfo.addVectorizableFunctions(vectorFunctions);
  }
  AnalysisManagers analyses(pb, libraryInfo);
  llvm::ModuleAnalysisManager& mam = analyses.modules;

  std::vector<llvm::Function*> entries;
  for (auto& f : module)
    if (f.getName().startswith(kEntryPrefix)) entries.push_back(&f);
  std::map<std::string, ThreadScheduling> scheduling;
  std::map<std::string, SimdGroupFunction> simdGroups;
  std::map<std::string, std::optional<std::set<uint64_t>>> argumentsReadBeforeLanes;
  std::set<std::string> callsSimd;  // entries that call SIMD-group functions
  for (llvm::Function* e : entries)
    scheduling[e->getName().str()] = reachesSynchronisation(*e) ? ThreadScheduling::Fibers : ThreadScheduling::Sequential;
  {
    // MSL has no recursion, so every function can be inlined into the kernels that call it: the
    // instrumentation, the coroutine lowering and the thread loop's vectoriser all want the whole
    // kernel in one function.
    for (auto& f : module)
      if (!f.isDeclaration() && !f.getName().startswith(kEntryPrefix)) {
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
      }
    llvm::ModulePassManager prepare;
    if (instrument) {
      // Each function's scalars out of memory before it is inlined, as they are after: inlining
      // unpromoted bodies into every call site made MLX's FFT kernels spend 0.8 s here (2.5x less).
      llvm::FunctionPassManager promoteEach;
      promoteEach.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      prepare.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(promoteEach)));
    }
    prepare.addPass(llvm::AlwaysInlinerPass());
    if (instrument) {
      llvm::FunctionPassManager promote;
      promote.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      // A load whose value is never used is no access: Apple's compiler removes it (MLX's steel
      // GEMM reads the parameters of a disabled epilogue into objects it never uses).
      promote.addPass(llvm::DCEPass());
      // A value read twice from one address with no write in between is one access, as it is in
      // an unchecked build (`in[i] * in[i]`): merged before each read gets its own check.
      promote.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
      prepare.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(promote)));
    }
    {
      StepTimer t("prepare (inline, SROA)");
      prepare.run(module, mam);
    }
    // After SROA, which turns copies of float4 objects into vector loads and stores (carrying the
    // copy's alignment), before anything can rely on an alignment the source promised.
    relaxVectorAlignment(module);
    // Before the checks instrument the loads (checked builds have had SROA by now); unchecked
    // quick builds after their SROA, below.
    keepBoolBytes(module);
    // Kernels that synchronise (barriers, SIMD-group functions) also get a function that runs a
    // SIMD-group's lanes as vector lanes, from the kernel as it is now (every call inlined; in
    // checked builds, its accesses instrumented, so that the SIMD-group function checks them as
    // the kernel does). For barrier-only kernels too: a threadgroup as a few SIMD-groups of
    // vector instructions beats a loop over its threads per region (the tree reduction 2.5x,
    // 4.5x with the default checks).
    if (instrument) {
      StepTimer t("instrument accesses");
      instrument(module);
    }
    std::vector<std::pair<std::string, llvm::Function*>> simdGroupFunctions;
    // (Not in the quick tier, whose synchronising kernels run on fibers, nor in a per-thread build.)
    for (const KernelInfo& k : kernels)
      if (llvm::Function* e = module.getFunction(k.entrySymbol))
        if (!quick && scheduling[k.entrySymbol] == ThreadScheduling::Fibers) {
          if (callsSimdGroupFunctions(*e)) callsSimd.insert(k.entrySymbol);
          if (paths == CodePaths::PerThread) continue;
          std::string whyNot;
          StepTimer t("vector lanes");
          llvm::Function* lanes = vectoriseSimdGroup(*e, k, simdGroupSymbol(k.entrySymbol), hostVectorMathVariant(tm), whyNot);
          if (lanes) simdGroupFunctions.push_back({k.entrySymbol, lanes});
          // MSLSIM_DEBUG_LANES=1: whether the vectoriser took each kernel and why not; =2: its IR too.
          if (const char* debug = std::getenv("MSLSIM_DEBUG_LANES")) {
            llvm::errs() << k.name << ": " << (lanes ? "vector lanes" : "no vector lanes: " + whyNot) << "\n";
            if (lanes && std::string(debug) == "2") lanes->print(llvm::errs());
          }
        }
    // The per-thread code only: the SIMD-group functions run under the default checks alone, where
    // no read is settled.
    if (instrument && sites)
      for (llvm::Function* e : entries) {
        addSettledReadTests(*e, *sites);
        addStoreClaims(*e, *sites);
      }
    for (llvm::Function* e : entries)
      if (scheduling[e->getName().str()] == ThreadScheduling::Fibers) insertSimdLoopPositions(*e);
    for (auto& [entry, lanes] : simdGroupFunctions) {
      StepTimer t("coroutines (vector lanes)");
      bool suspends = reachesSynchronisation(*lanes);
      if (suspends && !lowerSynchronisationToCoroutine(*lanes, /*suspendAtStart=*/true)) {
        lanes->eraseFromParent();
        continue;
      }
      simdGroups[entry] = SimdGroupFunction{suspends};
    }
    // A kernel that runs as vector lanes gets no per-thread code in a Default build: a dispatch
    // that needs it makes a PerThread build (CodePaths). For MLX's steel GEMM under the default
    // checks, the per-thread coroutine was 37,000 of 62,000 instructions and half of the compile.
    for (auto& [entry, lanes] : simdGroups) {
      llvm::Function* e = module.getFunction(entry);
      // Which arguments it reads, from the entry as it is (every call inlined), its dead code gone:
      // in an unchecked build its locals are still in memory (no SROA yet), where a store of an
      // argument nothing reads back would count as reading it (MLX's gemv, `bias` unbound).
      llvm::FunctionPassManager clean;
      clean.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      clean.addPass(llvm::ADCEPass());
      llvm::FunctionAnalysisManager& fam = analyses.functions;
      // The entry changed since its analyses were cached (instrumented, its SIMD loop positions
      // inserted): a stale dominator tree crashes SROA.
      fam.clear(*e, e->getName());
      clean.run(*e, fam);
      argumentsReadBeforeLanes[entry] = argumentsRead(module, {entry});
      entries.erase(std::remove(entries.begin(), entries.end(), e), entries.end());
      llvm::removeFromUsedLists(module, [e](llvm::Constant* c) { return c == e; });
      e->eraseFromParent();
      // The scheduler drives the SIMD-groups' coroutines as it would the threads'.
      scheduling[entry] = ThreadScheduling::Coroutines;
    }
    for (llvm::Function* e : entries)
      if (!quick && scheduling[e->getName().str()] == ThreadScheduling::Fibers)
        if (StepTimer t("coroutines (threads)"); llvm::Function* c = lowerSynchronisationToCoroutine(*e))
          scheduling[c->getName().str()] = ThreadScheduling::Coroutines;
    mam.clear();
  }
  // Kernels that never synchronise also get a loop over a threadgroup's threads: in unchecked
  // builds for the vectoriser; in checked ones it saves a call and the built-ins' writing per
  // thread, and tells the checks' slow paths which thread runs.
  enableVectorMath(module);
  // Every function is inlined into the entries now; only the simulator's own symbols are called
  // from outside. The kernel functions themselves (weak_odr template instantiations, external
  // kernels) would otherwise be optimised and compiled again for nothing: for MLX's steel GEMM that
  // was a third of the work.
  for (auto& f : module)
    if (!f.isDeclaration() && !f.getName().startswith("__mslsim_")) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (quick) {
    // The entry alone, each function's scalars out of memory, constant branches (function
    // constants) folded and dead code gone: what makes FastISel's code tolerable at a small cost.
    llvm::FunctionPassManager light;
    light.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    light.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/false));
    light.addPass(llvm::SimplifyCFGPass());
    light.addPass(llvm::DCEPass());
    llvm::ModulePassManager lightly;
    lightly.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(light)));
    lightly.addPass(llvm::GlobalDCEPass());  // the kernel functions, inlined into their entries
    lightly.run(module, mam);
    keepBoolBytes(module);  // what the optimised tier's InstCombine does to a bool's byte (after SROA)
    for (const auto& [entry, how] : scheduling)
      if (llvm::Function* e = module.getFunction(entry); e && how == ThreadScheduling::Fibers) fuseMatrixExchanges(*e);
    Optimised result;
    result.scheduling = std::move(scheduling);
    return result;
  }
  for (const KernelInfo& k : kernels)
    if (llvm::Function* e = module.getFunction(k.entrySymbol))
      if (scheduling[k.entrySymbol] == ThreadScheduling::Sequential)
        buildThreadLoop(*e, k, threadLoopSymbol(k.entrySymbol), /*recordThread=*/bool(instrument));
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  {
    StepTimer t("O2");
    mpm.run(module, mam);
  }
  Optimised result;
  result.argumentsRead = std::move(argumentsReadBeforeLanes);
  {
    std::set<llvm::Function*> newFunctions;
    // Split coroutines of barrier-only kernels also get a loop over the threadgroup's frames,
    // optimised with their resume function inlined (checked builds too: the hooks of their
    // checks' slow paths learn the thread from the loop).
    // Not for kernels with SIMD-group functions in checked builds, where their region loop would
    // record each thread's waits, which only unchecked runs do (ThreadgroupScheduler::runThreads),
    // nor in per-thread builds, which serve `--simd-lanes threads`, `--check simd` and the other
    // schedules of kernels whose vector lanes run the default dispatches: it is one more copy of
    // the kernel for the code generator (MLX's quantized matmul: 28,000 instructions; the SIMD
    // conformance kernels: half of their IR and of their code generation).
    for (const KernelInfo& k : kernels)
      if (scheduling[k.entrySymbol] == ThreadScheduling::Coroutines &&
          !(callsSimd.count(k.entrySymbol) && (instrument || paths == CodePaths::PerThread)))
        if (llvm::Function* ramp = module.getFunction(k.entrySymbol))
          if (StepTimer t("region loops"); auto layout = buildRegionLoop(*ramp, regionLoopSymbol(k.entrySymbol))) {
            newFunctions.insert(module.getFunction(regionLoopSymbol(k.entrySymbol)));
            result.regionLoops[k.entrySymbol] = *layout;
            // The threads' starts (to the first barrier), as one loop that computes the built-ins;
            // like the region loop, without barrier hooks when they have nothing to record.
            llvm::Function* starts = buildThreadLoop(*ramp, k, threadLoopSymbol(k.entrySymbol));
            newFunctions.insert(starts);
            if (inlineCalls(*starts, *ramp, /*dropBarrierHooks=*/!layout->recordsThreads)) handOutFramesByIndex(*starts);
          }
    // SIMD-group functions that suspend get the same loop, over their SIMD-groups' frames: one call
    // runs a region of every SIMD-group, without the scheduler's round of calls and barrier hooks
    // per SIMD-group. Not for large functions, where that round costs little against the work
    // and the loop would be one more copy for the code generator.
    for (auto& [entry, lanes] : simdGroups)
      if (lanes.suspends)
        if (llvm::Function* ramp = module.getFunction(simdGroupSymbol(entry)))
          if (llvm::Function* resume = module.getFunction((ramp->getName() + ".resume").str());
              resume && resume->getInstructionCount() <= kSimdGroupRegionLoopLimit)
            if (auto layout = buildRegionLoop(*ramp, simdGroupRegionsSymbol(entry), /*startsSuspended=*/true)) {
              llvm::Function* loop = module.getFunction(simdGroupRegionsSymbol(entry));
              // The SIMD-groups' starts, as one loop too (no hook call per frame).
              if (llvm::Function* starts = buildSimdGroupStarts(*ramp, simdGroupStartsSymbol(entry))) {
                newFunctions.insert(loop);
                newFunctions.insert(starts);
                lanes.regionLoop = std::move(*layout);
              } else {
                loop->eraseFromParent();
              }
            }
    if (!newFunctions.empty()) {
      // Only the new loops need optimising; everything else has been (for MLX's GEMM kernels
      // a second run over the whole module cost as much as the first).
      std::vector<std::pair<llvm::Function*, bool>> optimisedBefore;  // and whether it was noinline
      for (auto& f : module)
        if (!f.isDeclaration() && !f.hasFnAttribute(llvm::Attribute::OptimizeNone) && !newFunctions.count(&f)) {
          optimisedBefore.push_back({&f, f.hasFnAttribute(llvm::Attribute::NoInline)});
          f.addFnAttr(llvm::Attribute::OptimizeNone);
          f.addFnAttr(llvm::Attribute::NoInline);  // optnone requires it
        }
      mam.clear();
      llvm::ModulePassManager again = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
      StepTimer t("O2 of the region loops");
      again.run(module, mam);
      for (auto [f, wasNoInline] : optimisedBefore) {
        f->removeFnAttr(llvm::Attribute::OptimizeNone);
        if (!wasNoInline) f->removeFnAttr(llvm::Attribute::NoInline);
      }
    }
  }
  result.scheduling = std::move(scheduling);
  result.simdGroups = std::move(simdGroups);
  return result;
}

}  // namespace

namespace {
// Appended after the code generator's passes, it runs as each function's machine code is done
// (the legacy pass manager runs a function through every function pass before the next one).
class KernelCodeCounter : public llvm::FunctionPass {
 public:
  static char ID;
  KernelCodeCounter(std::set<std::string> entries, std::function<void(size_t, size_t)> done)
      : llvm::FunctionPass(ID), entries_(std::move(entries)), total_(entries_.size()), done_(std::move(done)) {}
  void getAnalysisUsage(llvm::AnalysisUsage& usage) const override { usage.setPreservesAll(); }
  bool runOnFunction(llvm::Function& f) override {
    if (entries_.erase(f.getName().str())) done_(total_ - entries_.size(), total_);
    return false;
  }

 private:
  std::set<std::string> entries_;
  size_t total_;
  std::function<void(size_t, size_t)> done_;
};
char KernelCodeCounter::ID = 0;
}  // namespace

bool compileToObject(CompiledProgram&& program, bool instrument, CodeTier tier, CodePaths paths, CompiledObject& out,
                     std::string& error, const std::function<void(size_t done, size_t total)>& kernelDone) {
  initialiseLlvmOnce();
  // Under MSLSIM_TIME_PASSES, the steps' times once the whole compile is done.
  struct PrintTimes {
    ~PrintTimes() {
      if (timingPasses()) llvm::TimerGroup::printAll(llvm::errs());
    }
  } printTimes;
  StepTimer whole("the whole compile to an object");
  llvm::Module& module = *program.module;
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    error = llvm::toString(jtmb.takeError());
    return false;
  }
  // The quick tier's instruction selection is FastISel with the fast register allocator: on MLX's
  // steel GEMM, 0.15 s of machine code against 6.5 s.
  jtmb->setCodeGenOptLevel(tier == CodeTier::Quick ? llvm::CodeGenOpt::None : llvm::CodeGenOpt::Default);
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    error = llvm::toString(tm.takeError());
    return false;
  }
  module.setDataLayout((*tm)->createDataLayout());
  SourceIndex noSources;
  const SourceIndex& sources = program.sources ? *program.sources : noSources;
  evaluateGlobalConstructors(module);
  // Nothing of the host is reachable from the kernel's code (HostBoundary.h).
  if (!checkHostBoundary(module, sources, /*fromFrontEnd=*/true, error)) return false;
  confineIndirectCalls(module);

  std::map<std::string, ThreadgroupLayout> threadgroupLayouts = lowerThreadgroupMemory(module, kEntryPrefix);
  stripVariableAnnotations(module);
  // Entries must survive internalisation and dead-code elimination.
  std::map<std::string, std::string> kernelOfEntry;  // the function each trampoline calls
  for (auto& f : module)
    if (f.getName().startswith(kEntryPrefix)) {
      f.setLinkage(llvm::GlobalValue::ExternalLinkage);
      for (auto& bb : f)
        for (auto& inst : bb)
          if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
            if (call->getCalledFunction()) kernelOfEntry[f.getName().str()] = call->getCalledFunction()->getName().str();
    }
  std::shared_ptr<const std::vector<AccessSite>> sites;
  std::function<void(llvm::Module&)> instrumentation;
  if (instrument)
    instrumentation = [&](llvm::Module& m) {
      sites = std::make_shared<const std::vector<AccessSite>>(instrumentMemoryAccesses(
          m, kEntryPrefix, kernelOfEntry, program.kernels, sources));
    };
  Optimised optimised = optimise(module, **tm, tier, paths, program.kernels, instrumentation, sites);
  std::map<std::string, ThreadScheduling>& scheduling = optimised.scheduling;
  {
    StepTimer t("lowering after O2");
    lowerRangeChecks(module);  // what the optimiser's versioning pass did not see
    unmaskWholeAccesses(module);
    repairMaskElementAccesses(module);
    useOneVectorMathVariant(module, hostVectorMathVariant(**tm));
    insertCancellationPolls(module, sources);
    outlineScalarisedAccesses(module, **tm);
  }
  // What optimisation added (library calls for intrinsics, vector math) stays inside the boundary.
  if (!checkHostBoundary(module, sources, /*fromFrontEnd=*/false, error)) {
    error = "internal error: after optimisation: " + error;
    return false;
  }
  // For developers of mslsim: the final IR, as the JIT gets it.
  if (const char* dump = std::getenv("MSLSIM_DUMP_IR")) {
    std::error_code ec;
    llvm::raw_fd_ostream dumpStream(dump, ec);
    if (!ec) module.print(dumpStream, nullptr);
  }
  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(module, &verifyStream)) {
    error = "internal error: invalid IR after lowering: " + verifyStream.str();
    return false;
  }
  // Native code for this machine.
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_ObjectFile)) {
    error = "internal error: the target cannot emit object files";
    return false;
  }
  if (kernelDone) {
    std::set<std::string> entries;
    for (auto& info : program.kernels) entries.insert(info.entrySymbol);
    codegen.add(new KernelCodeCounter(std::move(entries), kernelDone));
  }
  {
    StepTimer t("machine code");
    llvm::TimePassesIsEnabled = timingPasses();
    codegen.run(module);
  }
  out.object.assign(buffer.begin(), buffer.end());
  out.sources = program.sources;
  for (auto& info : program.kernels) {
    ExecutableKernel k;
    k.info = info;
    k.tier = tier;
    markUnreadArguments(optimised.argumentsRead.count(info.entrySymbol)
                            ? optimised.argumentsRead[info.entrySymbol]
                            : argumentsRead(module, {info.entrySymbol, threadLoopSymbol(info.entrySymbol)}),
                        k.info);
    k.perThreadCode = module.getFunction(info.entrySymbol) != nullptr;
    k.staticThreadgroupBytes = threadgroupLayouts[info.entrySymbol].bytes;
    k.threadgroupVariables = threadgroupLayouts[info.entrySymbol].variables;
    k.instrumented = instrument;
    k.sites = sites ? sites : std::make_shared<const std::vector<AccessSite>>();
    k.sources = program.sources;
    k.hasThreadLoop = module.getFunction(threadLoopSymbol(info.entrySymbol)) != nullptr;
    if (optimised.regionLoops.count(info.entrySymbol)) k.regionLoopLayout = optimised.regionLoops[info.entrySymbol];
    k.scheduling = scheduling.count(info.entrySymbol) ? scheduling[info.entrySymbol] : ThreadScheduling::Fibers;
    if (optimised.simdGroups.count(info.entrySymbol)) k.simdGroupFunction = optimised.simdGroups[info.entrySymbol];
    out.kernels.push_back(std::move(k));
  }
  return true;
}

namespace {
// For developers of mslsim: with MSLSIM_PERF_MAP=1, the JIT'd functions (resume functions and
// loops included) go to /tmp/perf-<pid>.map, where `perf report` finds the names of code it
// otherwise shows as addresses. The object's text is placed in one piece, so each function lies
// at its offset in the object from `known`, whose address the JIT gave.
void appendPerfMap(const CompiledObject& object, const std::string& known, uint64_t knownAddress) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.object.data(), object.object.size()), "mslsim-kernels.o"));
  if (!file) {
    llvm::consumeError(file.takeError());
    return;
  }
  auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  if (!elf) return;
  std::optional<uint64_t> base;
  for (const llvm::object::ELFSymbolRef symbol : elf->symbols()) {
    auto name = symbol.getName();
    auto value = symbol.getValue();
    if (name && value && *name == known) base = knownAddress - *value;
    if (!name) llvm::consumeError(name.takeError());
    if (!value) llvm::consumeError(value.takeError());
  }
  if (!base) return;
  FILE* map = std::fopen(("/tmp/perf-" + std::to_string(getpid()) + ".map").c_str(), "a");
  if (!map) return;
  for (const llvm::object::ELFSymbolRef symbol : elf->symbols()) {
    auto type = symbol.getType();
    auto name = symbol.getName();
    auto value = symbol.getValue();
    if (type && *type == llvm::object::SymbolRef::ST_Function && name && value)
      std::fprintf(map, "%llx %llx %s\n", (unsigned long long)(*base + *value), (unsigned long long)symbol.getSize(),
                   name->str().c_str());
    if (!type) llvm::consumeError(type.takeError());
    if (!name) llvm::consumeError(name.takeError());
    if (!value) llvm::consumeError(value.takeError());
  }
  std::fclose(map);
}
}  // namespace

JitResult loadObject(const CompiledObject& object) {
  JitResult result;
  initialiseLlvmOnce();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    result.error = llvm::toString(jtmb.takeError());
    return result;
  }
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) {
    result.error = llvm::toString(jit.takeError());
    return result;
  }
  auto& dylib = (*jit)->getMainJITDylib();
  llvm::orc::SymbolMap symbols;
  for (const RuntimeSymbol& s : runtimeSymbols())
    symbols[(*jit)->mangleAndIntern(s.name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(s.address), llvm::JITSymbolFlags::Exported);
  if (auto err = dylib.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    result.error = llvm::toString(std::move(err));
    return result;
  }
  // libm (expf, tanhf, ...) and libgcc (half conversions without F16C) come from this process, and
  // nothing else does (HostBoundary.h): an object from the cache is held to the same boundary.
  auto allowed = [](const llvm::orc::SymbolStringPtr& name) { return isAllowedHostSymbol((*name).str()); };
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix(), allowed);
  if (!generator) {
    result.error = llvm::toString(generator.takeError());
    return result;
  }
  dylib.addGenerator(std::move(*generator));
  // glibc's vector math library, for calls the vectoriser made (see optimise).
  auto vectorMath = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", (*jit)->getDataLayout().getGlobalPrefix(), allowed);
  if (vectorMath)
    dylib.addGenerator(std::move(*vectorMath));
  else
    llvm::consumeError(vectorMath.takeError());  // no libmvec: the vectorised calls fail to link, below
  if (auto err = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.object.data(), object.object.size()), "mslsim-kernels.o"))) {
    result.error = llvm::toString(std::move(err));
    return result;
  }
  std::shared_ptr<llvm::orc::LLJIT> owner(std::move(*jit));
  for (const ExecutableKernel& compiled : object.kernels) {
    // The address of one of the kernel's symbols, or the error that ends the load.
    auto find = [&](const std::string& symbol, auto& out) {
      auto address = owner->lookup(symbol);
      if (!address) {
        result.error = "kernel '" + compiled.info.name + "': " + llvm::toString(address.takeError());
        return false;
      }
      out = address->toPtr<std::remove_reference_t<decltype(out)>>();
      return true;
    };
    const std::string& entry = compiled.info.entrySymbol;
    ExecutableKernel k = compiled;
    if (compiled.perThreadCode && !find(entry, k.entry)) return result;
    if (compiled.simdGroupFunction && !find(simdGroupSymbol(entry), k.simdGroups)) return result;
    if (const char* map = std::getenv("MSLSIM_PERF_MAP"); map && *map == '1' && &compiled == &object.kernels.front())
      appendPerfMap(object, compiled.perThreadCode ? entry : simdGroupSymbol(entry),
                    reinterpret_cast<uint64_t>(compiled.perThreadCode ? (void*)k.entry : k.simdGroups));
    if (compiled.hasThreadLoop && !find(threadLoopSymbol(entry), k.threadLoop)) return result;
    if (compiled.regionLoopLayout && !find(regionLoopSymbol(entry), k.regionLoop)) return result;
    if (compiled.simdGroupFunction && compiled.simdGroupFunction->regionLoop &&
        (!find(simdGroupRegionsSymbol(entry), k.simdGroupRegions) || !find(simdGroupStartsSymbol(entry), k.simdGroupStarts)))
      return result;
    k.owner = owner;
    result.kernels.push_back(std::move(k));
  }
  result.ok = true;
  return result;
}

}  // namespace mslsim
