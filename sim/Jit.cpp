#include "Jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <functional>
#include <mutex>

#include "Hooks.h"
#include "IrPasses.h"

namespace mslsim {

namespace {

constexpr const char* kEntryPrefix = "__mslsim_entry.";

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
std::map<std::string, ThreadScheduling> optimise(llvm::Module& module, llvm::TargetMachine& tm,
                                                 const std::function<void(llvm::Module&)>& instrument) {
  bool vectorise = !instrument;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  // Checked builds are not vectorised: every access stays a plain load or store the checkers see.
  tuning.LoopVectorization = vectorise;
  tuning.SLPVectorization = vectorise;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);

  std::vector<llvm::Function*> entries;
  for (auto& f : module)
    if (f.getName().startswith(kEntryPrefix)) entries.push_back(&f);
  std::map<std::string, ThreadScheduling> scheduling;
  bool anySynchronises = false;
  for (llvm::Function* e : entries) {
    bool sync = reachesSynchronisation(*e);
    scheduling[e->getName().str()] = sync ? ThreadScheduling::Fibers : ThreadScheduling::Sequential;
    anySynchronises |= sync;
  }
  if (instrument || anySynchronises) {
    // MSL has no recursion, so every function can be inlined into the kernels that call it.
    for (auto& f : module)
      if (!f.isDeclaration() && !f.getName().startswith(kEntryPrefix)) {
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
      }
    llvm::ModulePassManager prepare;
    prepare.addPass(llvm::AlwaysInlinerPass());
    if (instrument) {
      llvm::FunctionPassManager promote;
      promote.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      prepare.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(promote)));
    }
    prepare.run(module, mam);
    if (instrument) instrument(module);
    for (llvm::Function* e : entries)
      if (scheduling[e->getName().str()] == ThreadScheduling::Fibers)
        if (llvm::Function* c = lowerSynchronisationToCoroutine(*e))
          scheduling[c->getName().str()] = ThreadScheduling::Coroutines;
    mam.clear();
  }
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  mpm.run(module, mam);
  return scheduling;
}

}  // namespace

bool compileToObject(CompiledProgram&& program, bool instrument, CompiledObject& out, std::string& error) {
  initialiseLlvmOnce();
  llvm::Module& module = *program.module;
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    error = llvm::toString(jtmb.takeError());
    return false;
  }
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    error = llvm::toString(tm.takeError());
    return false;
  }
  module.setDataLayout((*tm)->createDataLayout());

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
  SourceIndex noSources;
  std::function<void(llvm::Module&)> instrumentation;
  if (instrument)
    instrumentation = [&](llvm::Module& m) {
      sites = std::make_shared<const std::vector<AccessSite>>(instrumentMemoryAccesses(
          m, kEntryPrefix, kernelOfEntry, program.kernels, program.sources ? *program.sources : noSources));
    };
  std::map<std::string, ThreadScheduling> scheduling = optimise(module, **tm, instrumentation);
  insertCancellationPolls(module);
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
  codegen.run(module);
  out.object.assign(buffer.begin(), buffer.end());
  out.sources = program.sources;
  for (auto& info : program.kernels) {
    ExecutableKernel k;
    k.staticThreadgroupBytes = threadgroupLayouts[info.entrySymbol].bytes;
    k.threadgroupVariables = threadgroupLayouts[info.entrySymbol].variables;
    k.instrumented = instrument;
    k.sites = sites ? sites : std::make_shared<const std::vector<AccessSite>>();
    k.sources = program.sources;
    k.scheduling = scheduling.count(info.entrySymbol) ? scheduling[info.entrySymbol] : ThreadScheduling::Fibers;
    k.info = info;
    out.kernels.push_back(std::move(k));
  }
  return true;
}

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
  // libm (expf, tanhf, ...) and libgcc (half conversions without F16C) come from this process.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) {
    result.error = llvm::toString(generator.takeError());
    return result;
  }
  dylib.addGenerator(std::move(*generator));
  if (auto err = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.object.data(), object.object.size()), "mslsim-kernels.o"))) {
    result.error = llvm::toString(std::move(err));
    return result;
  }
  std::shared_ptr<llvm::orc::LLJIT> owner(std::move(*jit));
  for (const ExecutableKernel& compiled : object.kernels) {
    auto address = owner->lookup(compiled.info.entrySymbol);
    if (!address) {
      result.error = "kernel '" + compiled.info.name + "': " + llvm::toString(address.takeError());
      return result;
    }
    ExecutableKernel k = compiled;
    k.entry = address->toPtr<EntryFunction>();
    k.owner = owner;
    result.kernels.push_back(std::move(k));
  }
  result.ok = true;
  return result;
}

}  // namespace mslsim
