#include "IrPasses.h"

#include <llvm/ADT/SetVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <cstring>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "Hooks.h"

namespace mslsim {

namespace {

// Globals listed in llvm.global.annotations with the given annotation string. The annotation list is
// removed for those entries' sake: it would otherwise keep the globals alive.
std::vector<llvm::GlobalVariable*> takeAnnotatedGlobals(llvm::Module& module, llvm::StringRef text) {
  std::vector<llvm::GlobalVariable*> found;
  llvm::GlobalVariable* annotations = module.getNamedGlobal("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer()) return found;
  auto* array = llvm::dyn_cast<llvm::ConstantArray>(annotations->getInitializer());
  if (!array) return found;
  for (llvm::Value* op : array->operands()) {
    auto* entry = llvm::dyn_cast<llvm::ConstantStruct>(op);
    if (!entry || entry->getNumOperands() < 2) continue;
    auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(entry->getOperand(0)->stripPointerCasts());
    auto* str = llvm::dyn_cast<llvm::GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
    if (!gv || !str || !str->hasInitializer()) continue;
    auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(str->getInitializer());
    if (data && data->isCString() && data->getAsCString() == text) found.push_back(gv);
  }
  annotations->eraseFromParent();
  return found;
}

// Rewrites constant expressions that use `c` (transitively) into instructions next to their users,
// so that every use of `c` inside a function is an instruction operand.
void expandConstantExpressionUsers(llvm::Constant* c) {
  llvm::SmallVector<llvm::User*, 8> users(c->users());
  for (llvm::User* u : users) {
    auto* ce = llvm::dyn_cast<llvm::ConstantExpr>(u);
    if (!ce) continue;
    expandConstantExpressionUsers(ce);
    llvm::SmallVector<llvm::Use*, 8> uses;
    for (llvm::Use& use : ce->uses()) uses.push_back(&use);
    for (llvm::Use* use : uses) {
      auto* inst = llvm::dyn_cast<llvm::Instruction>(use->getUser());
      if (!inst) continue;
      llvm::Instruction* insertBefore = inst;
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(inst))
        insertBefore = phi->getIncomingBlock(*use)->getTerminator();
      use->set(ce->getAsInstruction(insertBefore));
    }
    if (ce->use_empty()) ce->destroyConstant();
  }
}

// "_ZZ4gemmPKfE4Asub" (a function-scope static) -> "Asub".
std::string variableName(const std::string& mangled) {
  std::string demangled = llvm::demangle(mangled);
  size_t colons = demangled.rfind("::");
  return colons == std::string::npos ? demangled : demangled.substr(colons + 2);
}

std::set<llvm::Function*> reachableFunctions(llvm::Function* root) {
  std::set<llvm::Function*> seen{root};
  std::vector<llvm::Function*> work{root};
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (auto& bb : *f)
      for (auto& inst : bb)
        for (llvm::Value* op : inst.operands())
          if (auto* callee = llvm::dyn_cast<llvm::Function>(op->stripPointerCasts()))
            if (!callee->isDeclaration() && seen.insert(callee).second) work.push_back(callee);
  }
  return seen;
}

}  // namespace

std::map<std::string, ThreadgroupLayout> lowerThreadgroupMemory(llvm::Module& module,
                                                                const std::string& entryPrefix) {
  std::map<std::string, ThreadgroupLayout> bytesPerEntry;
  std::vector<llvm::GlobalVariable*> variables = takeAnnotatedGlobals(module, "msl_threadgroup_memory");
  std::vector<llvm::Function*> entries;
  for (auto& f : module)
    if (f.getName().startswith(entryPrefix)) entries.push_back(&f);
  if (variables.empty()) {
    for (auto* e : entries) bytesPerEntry[e->getName().str()] = {};
    return bytesPerEntry;
  }
  const llvm::DataLayout& layout = module.getDataLayout();
  for (auto* gv : variables) expandConstantExpressionUsers(gv);

  // Which variables each kernel can touch.
  std::map<llvm::GlobalVariable*, std::set<llvm::Function*>> usedIn;
  for (auto* gv : variables)
    for (llvm::User* u : gv->users())
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(u)) usedIn[gv].insert(inst->getFunction());
  std::map<llvm::Function*, std::vector<llvm::GlobalVariable*>> perEntry;
  for (auto* e : entries) {
    std::set<llvm::Function*> reach = reachableFunctions(e);
    for (auto* gv : variables)
      for (auto* f : usedIn[gv])
        if (reach.count(f)) {
          perEntry[e].push_back(gv);
          break;
        }
  }

  // Greedy layout: a variable takes the lowest offset that overlaps no variable already placed
  // for any kernel that also uses it.
  std::map<llvm::GlobalVariable*, uint64_t> offsets;
  for (auto* gv : variables) {
    uint64_t size = layout.getTypeAllocSize(gv->getValueType());
    uint64_t align = std::max<uint64_t>(16, gv->getAlign() ? gv->getAlign()->value() : 16);
    std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of conflicting placed variables
    for (auto& [entry, vars] : perEntry) {
      if (std::find(vars.begin(), vars.end(), gv) == vars.end()) continue;
      for (auto* other : vars)
        if (offsets.count(other))
          busy.push_back({offsets[other], offsets[other] + layout.getTypeAllocSize(other->getValueType())});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto& [begin, end] : busy) {
      if (offset + size <= begin) break;
      offset = std::max(offset, (end + align - 1) / align * align);
    }
    offsets[gv] = offset;
  }
  for (auto* e : entries) {
    ThreadgroupLayout& l = bytesPerEntry[e->getName().str()];
    for (auto* gv : perEntry[e]) {
      uint64_t size = layout.getTypeAllocSize(gv->getValueType());
      l.bytes = std::max(l.bytes, offsets[gv] + size);
      // The innermost element type, for `--watch tile[17]` (flat element index).
      llvm::Type* element = gv->getValueType();
      while (auto* array = llvm::dyn_cast<llvm::ArrayType>(element)) element = array->getElementType();
      l.variables.push_back({variableName(gv->getName().str()), offsets[gv], size,
                             layout.getTypeAllocSize(element)});
    }
  }

  // Rewrite uses: one call for the arena base at the entry of each function that needs it.
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptrTy = llvm::PointerType::getUnqual(ctx);
  llvm::FunctionCallee arenaFn = module.getOrInsertFunction(
      hook::kThreadgroupArena, llvm::FunctionType::get(ptrTy, false));
  if (auto* decl = llvm::dyn_cast<llvm::Function>(arenaFn.getCallee())) {
    // The arena of a running threadgroup never changes (nor does a thread move to another
    // worker), so calls may be merged and hoisted, out of the JIT's loops over a threadgroup too,
    // also from where they run on some rounds only (a SIMD-group's first region, in the loop over
    // SIMD-groups): the call has no effect to speculate.
    decl->setDoesNotAccessMemory();
    decl->setDoesNotThrow();
    decl->setWillReturn();
    decl->addFnAttr(llvm::Attribute::Speculatable);
  }
  std::map<llvm::Function*, llvm::Value*> arenaBase;
  for (auto* gv : variables) {
    llvm::SmallVector<llvm::Use*, 16> uses;
    for (llvm::Use& use : gv->uses()) uses.push_back(&use);
    for (llvm::Use* use : uses) {
      auto* inst = llvm::dyn_cast<llvm::Instruction>(use->getUser());
      if (!inst) continue;
      llvm::Function* f = inst->getFunction();
      llvm::Value*& base = arenaBase[f];
      llvm::IRBuilder<> builder(&*f->getEntryBlock().getFirstInsertionPt());
      if (!base) base = builder.CreateCall(arenaFn, {}, "tg.arena");
      builder.SetInsertPoint(llvm::cast<llvm::Instruction>(base)->getNextNode());
      llvm::Value* address = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), base,
                                                                 offsets[gv], gv->getName() + ".tg");
      use->set(address);
    }
    gv->removeDeadConstantUsers();
    if (gv->use_empty()) gv->eraseFromParent();
  }
  return bytesPerEntry;
}

namespace {
// Metadata on a load, store or copy whose alignment relaxVectorAlignment lowered: what the source
// declared (one i32; a copy: destination, source).
constexpr const char* kDeclaredAlignKind = "mslsim.declared.align";
}  // namespace

void keepBoolBytes(llvm::Module& module) {
  for (auto& f : module)
    for (auto& bb : f)
      for (auto it = bb.begin(); it != bb.end();) {
        auto* widen = llvm::dyn_cast<llvm::ZExtInst>(&*it++);
        if (!widen || !widen->getType()->isIntegerTy(8)) continue;
        auto* narrow = llvm::dyn_cast<llvm::TruncInst>(widen->getOperand(0));
        if (!narrow || !narrow->getType()->isIntegerTy(1)) continue;
        auto* load = llvm::dyn_cast<llvm::LoadInst>(narrow->getOperand(0));
        if (!load || !load->getType()->isIntegerTy(8) || !load->getMetadata(llvm::LLVMContext::MD_range)) continue;
        widen->replaceAllUsesWith(load);
        widen->eraseFromParent();
      }
}

void relaxVectorAlignment(llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  // The alignment the source gave, kept for the alignment check (declaredAlignment).
  auto remember = [&](llvm::Instruction& inst, std::initializer_list<uint64_t> aligns) {
    std::vector<llvm::Metadata*> values;
    for (uint64_t a : aligns)
      values.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), a)));
    inst.setMetadata(kDeclaredAlignKind, llvm::MDNode::get(ctx, values));
  };
  auto elementAlign = [&](llvm::Type* type) -> std::optional<llvm::Align> {
    auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type);
    if (!vector) return std::nullopt;
    uint64_t bytes = module.getDataLayout().getTypeStoreSize(vector->getElementType());
    return llvm::Align(llvm::PowerOf2Ceil(std::max<uint64_t>(bytes, 1)));
  };
  for (auto& f : module)
    for (auto& bb : f)
      for (auto& inst : bb) {
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
          if (auto a = elementAlign(load->getType()); a && *a < load->getAlign()) {
            remember(inst, {load->getAlign().value()});
            load->setAlignment(*a);
          }
        } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
          if (auto a = elementAlign(store->getValueOperand()->getType()); a && *a < store->getAlign()) {
            remember(inst, {store->getAlign().value()});
            store->setAlignment(*a);
          }
        } else if (auto* transfer = llvm::dyn_cast<llvm::MemTransferInst>(&inst)) {
          // Copies of vector-holding structs (`*d4 = *c4` on float4 objects) alike.
          const llvm::Align word(4);
          uint64_t dest = transfer->getDestAlign() ? transfer->getDestAlign()->value() : 1;
          uint64_t source = transfer->getSourceAlign() ? transfer->getSourceAlign()->value() : 1;
          if (dest > word.value() || source > word.value()) remember(inst, {dest, source});
          if (dest > word.value()) transfer->setDestAlignment(word);
          if (source > word.value()) transfer->setSourceAlignment(word);
        }
      }
}

void stripVariableAnnotations(llvm::Module& module) {
  for (const char* name : {"llvm.var.annotation", "llvm.ptr.annotation", "llvm.annotation"}) {
    std::vector<llvm::Function*> declarations;
    for (auto& f : module)
      if (f.getName().startswith(name)) declarations.push_back(&f);
    for (llvm::Function* f : declarations) {
      for (llvm::User* u : llvm::make_early_inc_range(f->users())) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(u);
        if (!call) continue;
        // ptr.annotation and annotation return their first argument.
        if (!call->getType()->isVoidTy()) call->replaceAllUsesWith(call->getArgOperand(0));
        call->eraseFromParent();
      }
      if (f->use_empty()) f->eraseFromParent();
    }
  }
}

SourcePosition userPosition(const llvm::DILocation* location, const SourceIndex& sources) {
  for (const llvm::DILocation* loc = location; loc; loc = loc->getInlinedAt()) {
    // Clang splits an absolute path into a directory (the prefix shared with the working
    // directory) and the rest: put it back together to find the file as the user named it.
    std::string file = loc->getFilename().str();
    if (sources.isUserFile(file)) return sources.map(file, loc->getLine(), loc->getColumn());
    std::string joined = loc->getDirectory().str() + "/" + file;
    if (!loc->getDirectory().empty() && sources.isUserFile(joined))
      return sources.map(joined, loc->getLine(), loc->getColumn());
  }
  return {};
}

std::string locatedError(const SourcePosition& where, const SourceIndex& sources, const std::string& message) {
  if (where.file.empty()) return "error: " + message;
  std::string text = where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                     ": error: " + message;
  std::string line = sources.line(where.file, where.line);
  if (!line.empty() && where.column >= 1)
    text += "\n  " + line + "\n  " + std::string(where.column - 1, ' ') + "^";
  return text;
}

namespace {
SourcePosition userPosition(const llvm::Instruction& inst, const SourceIndex& sources);


llvm::MDNode* encodePosition(const llvm::DILocation* location, llvm::LLVMContext& ctx) {
  std::vector<llvm::Metadata*> frames;
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  for (const llvm::DILocation* loc = location; loc; loc = loc->getInlinedAt())
    frames.push_back(llvm::MDTuple::get(
        ctx, {llvm::MDString::get(ctx, loc->getDirectory()), llvm::MDString::get(ctx, loc->getFilename()),
              llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, loc->getLine())),
              llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, loc->getColumn()))}));
  return llvm::MDTuple::get(ctx, frames);
}

// The innermost frame in a user file (as userPosition does for a DILocation).
SourcePosition decodePosition(const llvm::MDNode* chain, const SourceIndex& sources) {
  for (const llvm::MDOperand& op : chain->operands()) {
    auto* frame = llvm::cast<llvm::MDTuple>(op.get());
    std::string dir = llvm::cast<llvm::MDString>(frame->getOperand(0))->getString().str();
    std::string file = llvm::cast<llvm::MDString>(frame->getOperand(1))->getString().str();
    unsigned line = unsigned(llvm::mdconst::extract<llvm::ConstantInt>(frame->getOperand(2))->getZExtValue());
    unsigned column = unsigned(llvm::mdconst::extract<llvm::ConstantInt>(frame->getOperand(3))->getZExtValue());
    if (sources.isUserFile(file)) return sources.map(file, line, column);
    if (!dir.empty() && sources.isUserFile(dir + "/" + file)) return sources.map(dir + "/" + file, line, column);
  }
  return {};
}
}  // namespace

namespace {
// The reads a loop's exits depend on, when they depend on nothing else the loop computes: no value
// carried round the loop (a phi of its header), no call. Empty when the loop is not a polling loop.
// Each read is a load or a compare-exchange / read-modify-write (their old value) of at most 8 bytes.
std::vector<llvm::Instruction*> polledReads(const llvm::Loop& loop, const llvm::DataLayout& layout) {
  llvm::SmallVector<llvm::BasicBlock*, 4> exiting;
  loop.getExitingBlocks(exiting);
  std::vector<llvm::Value*> work;
  for (llvm::BasicBlock* bb : exiting) {
    llvm::Instruction* t = bb->getTerminator();
    if (auto* br = llvm::dyn_cast<llvm::BranchInst>(t); br && br->isConditional()) work.push_back(br->getCondition());
    else if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t)) work.push_back(sw->getCondition());
    else return {};
  }
  std::set<const llvm::Value*> seen;
  std::vector<llvm::Instruction*> reads;
  auto small = [&](llvm::Type* t) {
    return (t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy() || t->isVectorTy()) &&
           layout.getTypeStoreSize(t) <= 8;
  };
  while (!work.empty()) {
    llvm::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (!inst || !loop.contains(inst)) continue;  // the same every iteration
    if (llvm::isa<llvm::PHINode>(inst) && inst->getParent() == loop.getHeader()) return {};
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(inst)) {  // atomic and volatile ones too
      if (!small(load->getType())) return {};
      reads.push_back(load);
    } else if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(inst)) {
      if (!small(rmw->getType())) return {};
      reads.push_back(rmw);
    } else if (auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(inst)) {
      if (!small(cas->getCompareOperand()->getType())) return {};
      reads.push_back(cas);
    } else if (llvm::isa<llvm::CallBase>(inst) || inst->mayHaveSideEffects()) {
      return {};
    }
    for (llvm::Use& u : inst->operands()) work.push_back(u.get());
  }
  return reads;
}
}  // namespace

void insertCancellationPolls(llvm::Module& module, const SourceIndex& sources) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptrTy = llvm::PointerType::getUnqual(ctx);
  llvm::GlobalVariable* flag = module.getNamedGlobal(hook::kCancelFlag);
  if (!flag)
    flag = new llvm::GlobalVariable(module, i32, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                    hook::kCancelFlag);
  llvm::FunctionCallee poll = module.getOrInsertFunction(
      hook::kPoll, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, i32, i32}, false));
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::FunctionCallee pollRead = module.getOrInsertFunction(
      hook::kPollRead, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, i64, i32}, false));
  const llvm::DataLayout& layout = module.getDataLayout();
  std::map<std::string, llvm::Constant*> fileNames;
  for (auto& f : module) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dt(f);
    llvm::LoopInfo loops(dt);
    // Each loop's header and its position in the user's source: the loop statement's, or the
    // first instruction of the loop with one (checked builds keep line tables; kernels lowered to
    // coroutines lose them, see lowerSynchronisationToCoroutine).
    std::vector<std::pair<llvm::BasicBlock*, SourcePosition>> headers;
    std::vector<llvm::Instruction*> reads;
    // The loops over a threadgroup's threads (buildThreadLoop: z, y, x and the copies the
    // optimiser makes of x; buildRegionLoop: one, over threads or SIMD-groups) end after the last
    // thread: only the kernel's own loops can spin, and only they poll (a poll per thread would
    // cost every long dispatch a hook call per thread once the watchdog starts diagnosing). A
    // kernel loop that can leave is nested in them; one that cannot (`while (true) {}`) is not,
    // and has no exit.
    unsigned threadLoopDepth = f.getName().startswith(kThreadLoopPrefix) ? 3
                               : f.getName().startswith(kRegionLoopPrefix) || f.getName().startswith(kSimdGroupRegionsPrefix) ? 1
                                                                                                                           : 0;
    for (llvm::Loop* l : loops.getLoopsInPreorder()) {
      llvm::SmallVector<llvm::BasicBlock*, 4> exits;
      l->getExitBlocks(exits);
      if (l->getLoopDepth() <= threadLoopDepth && !exits.empty()) continue;
      SourcePosition where = userPosition(l->getStartLoc().get(), sources);
      for (llvm::BasicBlock* bb : l->blocks()) {
        if (!where.file.empty()) break;
        for (llvm::Instruction& inst : *bb) {
          if (inst.getDebugLoc() && !(where = userPosition(inst, sources)).file.empty()) break;
          if (llvm::MDNode* chain = inst.getMetadata(kLoopPositionKind))
            if (!(where = decodePosition(chain, sources)).file.empty()) break;
        }
      }
      headers.push_back({l->getHeader(), where});
      for (llvm::Instruction* r : polledReads(*l, layout))
        if (std::find(reads.begin(), reads.end(), r) == reads.end()) reads.push_back(r);
    }
    // After each polled read: while the flag is set, tell the simulator what was read.
    for (llvm::Instruction* r : reads) {
      llvm::IRBuilder<> b(r->getNextNode());
      llvm::Value* pointer;
      llvm::Value* value;
      if (auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(r)) {
        pointer = cas->getPointerOperand();
        value = b.CreateExtractValue(cas, 0);
      } else {
        pointer = llvm::isa<llvm::LoadInst>(r) ? llvm::cast<llvm::LoadInst>(r)->getPointerOperand()
                                               : llvm::cast<llvm::AtomicRMWInst>(r)->getPointerOperand();
        value = r;
      }
      llvm::Type* type = value->getType();
      unsigned bits = unsigned(layout.getTypeStoreSizeInBits(type));
      if (type->isPointerTy()) value = b.CreatePtrToInt(value, i64);
      else if (!type->isIntegerTy()) value = b.CreateBitCast(value, b.getIntNTy(unsigned(layout.getTypeSizeInBits(type))));
      value = b.CreateZExtOrTrunc(value, i64);
      llvm::Value* set = b.CreateICmpNE(b.CreateLoad(i32, flag, /*isVolatile=*/true, "cancel"), b.getInt32(0));
      llvm::Instruction* then = llvm::SplitBlockAndInsertIfThen(set, &*b.GetInsertPoint(), false,
                                                                llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
      llvm::IRBuilder<>(then).CreateCall(pollRead, {pointer, value, b.getInt32(bits / 8)});
    }
    for (auto& [header, where] : headers) {
      llvm::BasicBlock* rest = header->splitBasicBlock(header->getFirstInsertionPt(), header->getName() + ".body");
      header->getTerminator()->eraseFromParent();
      llvm::BasicBlock* pollBlock = llvm::BasicBlock::Create(ctx, "cancel.poll", &f, rest);
      llvm::IRBuilder<> b(header);
      llvm::LoadInst* value = b.CreateLoad(i32, flag, /*isVolatile=*/true, "cancel");
      llvm::Value* set = b.CreateICmpNE(value, b.getInt32(0));
      llvm::MDBuilder md(ctx);
      b.CreateCondBr(set, pollBlock, rest, md.createBranchWeights(1, 1 << 20));
      llvm::IRBuilder<> pb(pollBlock);
      llvm::Constant*& file = fileNames[where.file];
      if (!file)
        file = where.file.empty() ? llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx))
                                  : pb.CreateGlobalStringPtr(where.file, "loop.file", 0, &module);
      pb.CreateCall(poll, {file, pb.getInt32(where.line), pb.getInt32(where.column)});
      pb.CreateBr(rest);
    }
  }
}

namespace {

// The user's position of an instruction: the innermost frame (through inlining) in a user file.
SourcePosition userPosition(const llvm::Instruction& inst, const SourceIndex& sources) {
  return userPosition(inst.getDebugLoc().get(), sources);
}


// What an access through `pointer` is, as far as the IR shows: the trampoline's own reads of its
// argument slots (not user accesses), an access through a kernel parameter (by way of the
// trampoline's args array, or the kernel function's own argument when it was not inlined), an
// access at a constant offset of the threadgroup arena, or thread-private memory.
struct PointerClass {
  bool skip = false;
  int param = -1;
  int64_t threadgroupOffset = -1;
  // A thread-private array or a program-scope constant, whose bounds are checked inline.
  llvm::Value* object = nullptr;
  uint64_t objectBytes = 0, elementSize = 1;
  // A pointer chosen between such objects and other memory (a select or phi): the objects and
  // their sizes. An address inside one of them is in range; any other goes to the hook.
  std::vector<std::pair<llvm::Value*, uint64_t>> alternatives;
};

// The size of the innermost element of an array type (of arrays), for the index in reports.
uint64_t innermostElementSize(llvm::Type* t, const llvm::DataLayout& layout) {
  while (auto* a = llvm::dyn_cast<llvm::ArrayType>(t)) t = a->getElementType();
  return std::max<uint64_t>(1, layout.getTypeAllocSize(t));
}

// The name of a private array or constant as the source spelt it: Clang's local names gain
// suffixes when inlined ("thread_x.i", "acc.i12"), globals are mangled.
std::string sourceName(const llvm::Value& v) {
  std::string name = llvm::demangle(v.getName().str());
  size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  return name.empty() ? "<unnamed>" : name;
}

// If `pointer` is `args + 8*i` for the entry's args parameter, returns i.
int argsSlot(const llvm::Value* pointer, const llvm::DataLayout& layout) {
  int64_t offset = 0;
  const llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(pointer, offset, layout);
  auto* arg = llvm::dyn_cast<llvm::Argument>(base);
  if (arg && arg->getArgNo() == 0 && arg->getParent()->getName().startswith("__mslsim_entry.") && offset % 8 == 0)
    return int(offset / 8);
  return -1;
}

PointerClass classifyPointer(llvm::Value* pointer, uint64_t accessBytes, const llvm::DataLayout& layout,
                             const std::set<std::string>& kernelFunctions,
                             const std::map<std::string, const KernelInfo*>& kernelOfEntrySymbol) {
  PointerClass c;
  const llvm::Value* base = llvm::getUnderlyingObject(pointer, 0);
  auto isPrivateOrConstant = [](const llvm::Value* v) {
    auto* global = llvm::dyn_cast<llvm::GlobalVariable>(v);
    return llvm::isa<llvm::AllocaInst>(v) || (global && !global->isDeclaration());
  };
  if (!isPrivateOrConstant(base)) {
    // A pointer chosen by a select or a phi among rows of one private array or constant table
    // (MLX's threefry: `for (auto r : rotations[i % 2])`, unrolled): that object.
    llvm::SmallVector<const llvm::Value*, 4> objects;
    llvm::getUnderlyingObjects(pointer, objects);
    if (!objects.empty() && std::all_of(objects.begin(), objects.end(), isPrivateOrConstant)) {
      if (objects.size() > 1) {
        c.skip = true;  // one of several private objects: no one bounds to check it against
        return c;
      }
      base = objects.front();
    } else {
      // Some of them (MLX's all_reduce: `lid < n ? shared_vals[lid] : op.init`, threadgroup
      // memory or a program-scope constant): an address inside one of those objects is in range.
      for (const llvm::Value* object : objects) {
        if (!isPrivateOrConstant(object)) continue;
        std::optional<uint64_t> bytes;
        if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(object)) {
          if (auto size = alloca->getAllocationSize(layout)) bytes = size->getFixedValue();
        } else {
          bytes = layout.getTypeAllocSize(llvm::cast<llvm::GlobalVariable>(object)->getValueType()).getFixedValue();
        }
        if (!bytes) {  // a private object of unknown size: nothing to check this access against
          c.skip = true;
          return c;
        }
        c.alternatives.emplace_back(const_cast<llvm::Value*>(object), *bytes);
      }
    }
  }
  if (llvm::isa<llvm::AllocaInst>(base) || llvm::isa<llvm::GlobalVariable>(base)) {
    // Thread-private memory, and (after lowering) program-scope constant data: not the
    // simulator's business unless the access may leave the object, which is checked inline.
    c.skip = true;
    std::optional<uint64_t> bytes;
    llvm::Type* type = nullptr;
    if (auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(base)) {
      if (auto size = alloca->getAllocationSize(layout)) bytes = size->getFixedValue();
      type = alloca->getAllocatedType();
    } else if (auto* global = llvm::dyn_cast<llvm::GlobalVariable>(base); global && !global->isDeclaration()) {
      type = global->getValueType();
      bytes = layout.getTypeAllocSize(type).getFixedValue();
    }
    if (!bytes || *bytes == 0) return c;
    int64_t offset = 0;
    const llvm::Value* constantBase = llvm::GetPointerBaseWithConstantOffset(pointer, offset, layout);
    if (constantBase == base && offset >= 0 && uint64_t(offset) + accessBytes <= *bytes && accessBytes) return c;
    c.object = const_cast<llvm::Value*>(base);
    c.objectBytes = *bytes;
    c.elementSize = innermostElementSize(type, layout);
    return c;
  }
  if (auto* arg = llvm::dyn_cast<llvm::Argument>(base)) {
    if (arg->getParent()->getName().startswith("__mslsim_entry.")) c.skip = true;  // the args array
    else if (kernelFunctions.count(arg->getParent()->getName().str())) c.param = int(arg->getArgNo());
    return c;
  }
  if (auto* load = llvm::dyn_cast<llvm::LoadInst>(base)) {
    const llvm::Value* slotPointer = load->getPointerOperand();
    int slot = argsSlot(slotPointer, layout);
    if (slot >= 0) {
      // args[slot] itself points at the value: a reference parameter's object, or the storage of
      // a pointer, threadgroup or built-in parameter (the trampoline reading its own slot).
      const llvm::Function* entry = load->getFunction();
      auto it = kernelOfEntrySymbol.find(entry->getName().str());
      const KernelInfo* info = it == kernelOfEntrySymbol.end() ? nullptr : it->second;
      if (info && slot < int(info->arguments.size()) && info->arguments[slot].isReference &&
          info->arguments[slot].role == ArgumentRole::Buffer)
        c.param = slot;
      else
        c.skip = true;
      return c;
    }
    if (auto* slotLoad = llvm::dyn_cast<llvm::LoadInst>(llvm::getUnderlyingObject(slotPointer, 0))) {
      (void)slotLoad;
      int s = argsSlot(slotLoad->getPointerOperand(), layout);
      if (s >= 0 && slotPointer == slotLoad) c.param = s;  // *(T**)args[s]: a pointer parameter
    }
    return c;
  }
  // Threadgroup variables: walk GEPs back to `arena + constant`.
  auto isArena = [](const llvm::Value* v) {
    auto* call = llvm::dyn_cast<llvm::CallInst>(v);
    return call && call->getCalledFunction() && call->getCalledFunction()->getName() == hook::kThreadgroupArena;
  };
  llvm::Value* v = pointer;
  if (isArena(v->stripPointerCasts())) {  // the arena itself: element 0 of the first variable
    c.threadgroupOffset = 0;
    return c;
  }
  for (int depth = 0; depth < 16; ++depth) {
    v = v->stripPointerCasts();
    auto* gep = llvm::dyn_cast<llvm::GEPOperator>(v);
    if (!gep) return c;
    llvm::Value* inner = gep->getPointerOperand()->stripPointerCasts();
    if (llvm::isa<llvm::CallInst>(inner)) {
      if (isArena(inner)) {
        // The constant part of the offset from the arena: the variable's own offset plus constant
        // indices into it (`tile[ty][3]`), which stay inside the variable.
        llvm::MapVector<llvm::Value*, llvm::APInt> variable;
        llvm::APInt constant(64, 0);
        if (gep->collectOffset(layout, 64, variable, constant) && !constant.isNegative())
          c.threadgroupOffset = constant.getSExtValue();
      }
      return c;
    }
    v = inner;
  }
  return c;
}

}  // namespace

std::vector<AccessSite> instrumentMemoryAccesses(llvm::Module& module, const std::string& entryPrefix,
                                                 const std::map<std::string, std::string>& kernelOfEntry,
                                                 const std::vector<KernelInfo>& kernels,
                                                 const SourceIndex& sources) {
  std::vector<AccessSite> sites;
  llvm::LLVMContext& ctx = module.getContext();
  const llvm::DataLayout& layout = module.getDataLayout();
  llvm::Type* ptrTy = llvm::PointerType::getUnqual(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::FunctionCallee hookFn = module.getOrInsertFunction(
      hook::kAccess, llvm::FunctionType::get(i32, {ptrTy, i64, i32, ptrTy}, false));
  llvm::FunctionCallee filterFn = module.getOrInsertFunction(hook::kAccessFilter, llvm::FunctionType::get(ptrTy, false));
  llvm::FunctionCallee inRangeFn = module.getOrInsertFunction(
      hook::kInRange, llvm::FunctionType::get(llvm::Type::getInt1Ty(ctx), {i64, i64, i64, i64}, false));
  if (auto* inRangeDecl = llvm::dyn_cast<llvm::Function>(inRangeFn.getCallee())) {
    // A compare: free to move, merge or drop like one.
    inRangeDecl->setDoesNotAccessMemory();
    inRangeDecl->setDoesNotThrow();
    inRangeDecl->setWillReturn();
    inRangeDecl->addFnAttr(llvm::Attribute::Speculatable);
  }
  // The table is the same for every thread of a threadgroup: in a loop over the threadgroup's
  // threads (buildThreadLoop) the call moves out of the loop.
  if (auto* filterDecl = llvm::dyn_cast<llvm::Function>(filterFn.getCallee())) {
    filterDecl->setDoesNotAccessMemory();
    filterDecl->setDoesNotThrow();
    filterDecl->setWillReturn();
  }
  std::set<std::string> kernelFunctions;
  for (auto& [entry, kernel] : kernelOfEntry) kernelFunctions.insert(kernel);
  std::map<std::string, const KernelInfo*> kernelOfEntrySymbol;
  for (auto& k : kernels) kernelOfEntrySymbol[k.entrySymbol] = &k;

  // One memory operation may make two accesses (a memcpy reads and writes).
  struct Access {
    llvm::Value* pointer;
    llvm::Value* size;
    AccessOp op;
    llvm::Value* newValue;  // a store's value (stored to a stack slot for the hook), or a copy's source
    llvm::Type* type = nullptr;  // a load's or store's value type
  };
  // Operands are read when each instruction is instrumented, not before: guarding one load may
  // replace it (by a phi) in the operands of later instructions.
  auto accessesOf = [&](llvm::Instruction& inst) {
    std::vector<Access> accesses;
    auto bytes = [&](llvm::Type* t) { return llvm::ConstantInt::get(i64, layout.getTypeStoreSize(t)); };
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      accesses.push_back({load->getPointerOperand(), bytes(load->getType()),
                          load->isAtomic() ? AccessOp::AtomicLoad : AccessOp::Load, nullptr, load->getType()});
    } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      accesses.push_back({store->getPointerOperand(), bytes(store->getValueOperand()->getType()),
                          store->isAtomic() ? AccessOp::AtomicStore : AccessOp::Store, store->getValueOperand(),
                          store->getValueOperand()->getType()});
    } else if (auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
      accesses.push_back({rmw->getPointerOperand(), bytes(rmw->getValOperand()->getType()), AccessOp::AtomicRMW, nullptr});
    } else if (auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
      accesses.push_back({cas->getPointerOperand(), bytes(cas->getNewValOperand()->getType()), AccessOp::AtomicRMW, nullptr});
    } else if (auto* transfer = llvm::dyn_cast<llvm::MemTransferInst>(&inst)) {
      accesses.push_back({transfer->getRawSource(), transfer->getLength(), AccessOp::Load, nullptr});
      accesses.push_back({transfer->getRawDest(), transfer->getLength(), AccessOp::Store, transfer->getRawSource()});
    } else if (auto* set = llvm::dyn_cast<llvm::MemSetInst>(&inst)) {
      accesses.push_back({set->getRawDest(), set->getLength(), AccessOp::Store, nullptr});
    }
    return accesses;
  };
  llvm::FunctionCallee overrunFn = module.getOrInsertFunction(
      hook::kPrivateOverrun, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, i64, i32, ptrTy}, false));
  llvm::IRBuilder<>* builder = nullptr;
  auto andAllowed = [&](llvm::Value* allowed, llvm::Value* ok) {
    return allowed ? builder->CreateAnd(allowed, ok) : ok;
  };
  // An access to a private array or constant object: performed when [address, address + size)
  // lies inside the object, else reported (kPrivateOverrun) and not performed, so a kernel cannot
  // reach the simulator's stack or data through an index. One compare in the common case.
  auto checkObjectBounds = [&](llvm::IRBuilder<>& b, llvm::Instruction& inst, const Access& a,
                               const PointerClass& c) -> llvm::Value* {
    AccessSite site;
    site.op = a.op;
    site.where = userPosition(inst, sources);
    site.privateObject = sourceName(*c.object);
    site.privateBytes = c.objectBytes;
    site.privateElementSize = c.elementSize;
    site.privateIsConstant = llvm::isa<llvm::GlobalVariable>(c.object);
    uint32_t index = uint32_t(sites.size());
    sites.push_back(site);
    llvm::Value* size = b.CreateZExtOrTrunc(a.size, i64);
    llvm::Value* bytes = llvm::ConstantInt::get(i64, c.objectBytes);
    llvm::Value* offset = b.CreateSub(b.CreatePtrToInt(a.pointer, i64), b.CreatePtrToInt(c.object, i64));
    llvm::Value* inside = b.CreateAnd(b.CreateICmpULE(size, bytes), b.CreateICmpULE(offset, b.CreateSub(bytes, size)));
    llvm::BasicBlock* before = inst.getParent();
    llvm::Instruction* slowEnd = llvm::SplitBlockAndInsertIfThen(b.CreateNot(inside), &inst, false,
                                                                 llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
    llvm::BasicBlock* slow = slowEnd->getParent();
    llvm::IRBuilder<>(slowEnd).CreateCall(overrunFn, {a.pointer, size, llvm::ConstantInt::get(i32, index), c.object});
    b.SetInsertPoint(&inst);
    llvm::PHINode* ok = b.CreatePHI(b.getInt1Ty(), 2, "private.ok");
    ok->addIncoming(b.getTrue(), before);
    ok->addIncoming(b.getFalse(), slow);
    return ok;
  };
  for (auto& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::Instruction*> work;
    for (auto& bb : f)
      for (auto& inst : bb)
        if (!accessesOf(inst).empty()) work.push_back(&inst);
    if (work.empty()) continue;
    // The simulator's filter: per site, the byte range an access may touch without the hook
    // being told (see hook::kAccessFilter).
    llvm::Value* filter = llvm::IRBuilder<>(&*f.getEntryBlock().getFirstInsertionPt()).CreateCall(filterFn, {}, "access.filter");
    std::map<llvm::Type*, llvm::AllocaInst*> storedValueSlots;
    for (llvm::Instruction* inst : work) {
      std::vector<Access> accesses = accessesOf(*inst);
      // The hooks run before the operation and say whether it may happen: an access the bounds
      // check rejects is not performed (a load yields zero), so it cannot corrupt host memory.
      llvm::IRBuilder<> b(inst);
      builder = &b;
      llvm::Value* allowed = nullptr;
      for (auto& a : accesses) {
        auto* constantSize = llvm::dyn_cast<llvm::ConstantInt>(a.size);
        PointerClass c = classifyPointer(a.pointer, constantSize ? constantSize->getZExtValue() : 0, layout,
                                         kernelFunctions, kernelOfEntrySymbol);
        if (c.object) {
          allowed = andAllowed(allowed, checkObjectBounds(b, *inst, a, c));
          continue;
        }
        if (c.skip) continue;
        AccessSite site;
        site.op = a.op;
        site.where = userPosition(*inst, sources);
        site.param = c.param;
        site.threadgroupOffset = c.threadgroupOffset;
        if (llvm::MDNode* declared = inst->getMetadata(kDeclaredAlignKind)) {
          // Loads and stores: one alignment; copies: the destination's, then the source's.
          unsigned operand = declared->getNumOperands() == 2 && a.op == AccessOp::Load ? 1 : 0;
          site.vectorAlign = uint32_t(llvm::mdconst::extract<llvm::ConstantInt>(declared->getOperand(operand))->getZExtValue());
          if (a.type) {
            llvm::raw_string_ostream spelling(site.vectorType);
            a.type->print(spelling);
          }
        }
        uint32_t index = uint32_t(sites.size());
        sites.push_back(site);
        // Inside the filter's range: the access goes ahead without a call.
        llvm::Value* size = b.CreateZExtOrTrunc(a.size, i64);
        llvm::Value* range = b.CreateConstInBoundsGEP1_64(i64, filter, 2 * uint64_t(index));
        llvm::LoadInst* lo = b.CreateLoad(i64, range, "filter.begin");
        llvm::LoadInst* hi = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, range, 1), "filter.end");
        for (llvm::LoadInst* l : {lo, hi}) l->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
        llvm::Value* address = b.CreatePtrToInt(a.pointer, i64);
        llvm::Value* inRange = b.CreateCall(inRangeFn, {address, size, lo, hi}, "in.range");
        for (auto& [object, objectBytes] : c.alternatives) {
          llvm::Value* bytes = llvm::ConstantInt::get(i64, objectBytes);
          llvm::Value* offset = b.CreateSub(address, b.CreatePtrToInt(object, i64));
          llvm::Value* inside = b.CreateAnd(b.CreateICmpULE(size, bytes), b.CreateICmpULE(offset, b.CreateSub(bytes, size)));
          inRange = b.CreateOr(inRange, inside);
        }
        llvm::BasicBlock* before = inst->getParent();
        llvm::Instruction* slowEnd = llvm::SplitBlockAndInsertIfThen(b.CreateNot(inRange), inst, false,
                                                                     llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
        llvm::BasicBlock* slow = slowEnd->getParent();
        llvm::IRBuilder<> sb(slowEnd);
        llvm::Value* value = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx));
        if (a.newValue && a.newValue->getType()->isPointerTy() && llvm::isa<llvm::MemTransferInst>(inst)) {
          value = a.newValue;
        } else if (a.newValue) {
          // One slot per type and function: the hook reads it during the call (a slot per site
          // made a kernel's private memory, 32 copies of it as vector lanes, grow with its stores).
          llvm::AllocaInst*& slot = storedValueSlots[a.newValue->getType()];
          if (!slot) {
            slot = llvm::IRBuilder<>(&*f.getEntryBlock().getFirstInsertionPt()).CreateAlloca(a.newValue->getType(), nullptr, "stored.value");
            slot->setMetadata(kHookSlotKind, llvm::MDNode::get(ctx, {}));
          }
          sb.CreateStore(a.newValue, slot);
          value = slot;
        }
        llvm::Value* hookSaysYes = sb.CreateICmpNE(sb.CreateCall(hookFn, {a.pointer, size, llvm::ConstantInt::get(i32, index), value}),
                                                   llvm::ConstantInt::get(i32, 0));
        b.SetInsertPoint(inst);
        llvm::PHINode* ok = b.CreatePHI(b.getInt1Ty(), 2, "access.ok");
        ok->addIncoming(b.getTrue(), before);
        ok->addIncoming(hookSaysYes, slow);
        allowed = andAllowed(allowed, ok);
      }
      if (!allowed) continue;
      b.SetInsertPoint(inst);
      llvm::BasicBlock* head = inst->getParent();
      llvm::Instruction* thenEnd = llvm::SplitBlockAndInsertIfThen(allowed, inst, false);
      llvm::BasicBlock* tail = inst->getParent();
      inst->moveBefore(thenEnd);
      if (!inst->getType()->isVoidTy() && !inst->use_empty()) {
        // A refused read gives zero. A refused compare-and-swap succeeds without writing: failing,
        // it would send a CAS loop (a float or half atomic, as MLX's scatter makes) round for ever
        // after the finding was made (MLX's test_identity ran into the time limit so).
        llvm::Value* refused = llvm::Constant::getNullValue(inst->getType());
        if (auto* cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(inst)) {
          llvm::IRBuilder<> hb(head->getTerminator());
          refused = hb.CreateInsertValue(hb.CreateInsertValue(llvm::PoisonValue::get(cas->getType()),
                                                              cas->getCompareOperand(), 0),
                                         hb.getTrue(), 1);
        }
        llvm::PHINode* phi = llvm::PHINode::Create(inst->getType(), 2, "", &tail->front());
        inst->replaceAllUsesWith(phi);
        phi->addIncoming(inst, thenEnd->getParent());
        phi->addIncoming(refused, head);
      }
    }
  }
  // The table has a range per site, so its reads can move out of the branches they are in (LICM
  // hoists them out of a loop over threads even where an `if (gid < n)` guards the access).
  if (auto* filterDecl = llvm::dyn_cast<llvm::Function>(filterFn.getCallee())) {
    filterDecl->addRetAttr(llvm::Attribute::getWithDereferenceableBytes(ctx, 16 * std::max<uint64_t>(sites.size(), 1)));
    filterDecl->addRetAttr(llvm::Attribute::getWithAlignment(ctx, llvm::Align(8)));
    filterDecl->addRetAttr(llvm::Attribute::NonNull);
  }
  return sites;
}

AnalysisManagers::AnalysisManagers(llvm::PassBuilder& passes, llvm::TargetLibraryInfoImpl& library) {
  functions.registerPass([&library] { return llvm::TargetLibraryAnalysis(library); });
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(cgscc);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, cgscc, modules);
}

namespace {

// The bytes of a constant as memory holds it (undef as zero); false for what has no fixed bytes
// (a pointer, a constant expression).
bool constantBytes(const llvm::Constant* c, const llvm::DataLayout& layout, uint8_t* out) {
  uint64_t size = layout.getTypeStoreSize(c->getType());
  if (llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::UndefValue>(c) ||
      llvm::isa<llvm::ConstantPointerNull>(c)) {
    std::memset(out, 0, size);
    return true;
  }
  if (auto* i = llvm::dyn_cast<llvm::ConstantInt>(c)) {
    llvm::APInt v = i->getValue().zextOrTrunc(unsigned(size * 8));
    for (uint64_t b = 0; b < size; ++b) out[b] = uint8_t(v.extractBitsAsZExtValue(8, unsigned(b * 8)));
    return true;
  }
  if (auto* f = llvm::dyn_cast<llvm::ConstantFP>(c)) {
    llvm::APInt v = f->getValueAPF().bitcastToAPInt().zextOrTrunc(unsigned(size * 8));
    for (uint64_t b = 0; b < size; ++b) out[b] = uint8_t(v.extractBitsAsZExtValue(8, unsigned(b * 8)));
    return true;
  }
  if (auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
    llvm::StringRef raw = data->getRawDataValues();
    std::memset(out, 0, size);
    std::memcpy(out, raw.data(), std::min<uint64_t>(raw.size(), size));
    return true;
  }
  if (llvm::isa<llvm::ConstantVector>(c) || llvm::isa<llvm::ConstantArray>(c) || llvm::isa<llvm::ConstantStruct>(c)) {
    std::memset(out, 0, size);
    auto* structType = llvm::dyn_cast<llvm::StructType>(c->getType());
    const llvm::StructLayout* fields = structType ? layout.getStructLayout(structType) : nullptr;
    for (unsigned i = 0; i < c->getNumOperands(); ++i) {
      auto* element = llvm::cast<llvm::Constant>(c->getOperand(i));
      uint64_t offset = fields ? fields->getElementOffset(i)
                               : i * (llvm::isa<llvm::ConstantVector>(c) ? layout.getTypeStoreSize(element->getType())
                                                                        : layout.getTypeAllocSize(element->getType()));
      if (!constantBytes(element, layout, out + offset)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

void evaluateGlobalConstructors(llvm::Module& module) {
  llvm::GlobalVariable* list = module.getNamedGlobal("llvm.global_ctors");
  if (!list || !list->hasInitializer()) return;
  auto* entries = llvm::dyn_cast<llvm::ConstantArray>(list->getInitializer());
  if (!entries) return;
  const llvm::DataLayout& layout = module.getDataLayout();
  llvm::TargetLibraryInfoImpl libraryInfo(llvm::Triple(module.getTargetTriple()));
  llvm::PassBuilder pb;
  AnalysisManagers analyses(pb, libraryInfo);
  llvm::FunctionAnalysisManager& fam = analyses.functions;
  // Inline what the initialiser calls (vector and matrix constructors), promote its locals and
  // fold: a constructor of constants becomes stores of constants to the variables.
  auto simplify = [&](llvm::Function& f) {
    for (int round = 0; round < 16; ++round) {
      std::vector<llvm::CallBase*> calls;
      for (auto& bb : f)
        for (auto& inst : bb)
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
            if (call->getCalledFunction() && !call->getCalledFunction()->isDeclaration()) calls.push_back(call);
      if (calls.empty()) break;
      for (llvm::CallBase* call : calls) {
        llvm::InlineFunctionInfo info;
        (void)llvm::InlineFunction(*call, info);
      }
    }
    // LLVM's -O2 function simplification (SROA, InstCombine, full unrolling of the constant-trip
    // loops that copy an initializer list, as SPIR-V Cross's spvUnsafeArray does).
    llvm::FunctionPassManager passes =
        pb.buildFunctionSimplificationPipeline(llvm::OptimizationLevel::O2, llvm::ThinOrFullLTOPhase::None);
    passes.run(f, fam);
  };
  // The stores of one straight-line initialiser, applied to byte images of the variables. A load
  // of a variable initialised before (`constant int t[2] = {int(size.x), 1};`) reads the image:
  // it is replaced by that constant and the initialiser folded again.
  std::map<llvm::GlobalVariable*, std::vector<uint8_t>> images;
  enum class Step { Done, Failed, Folded };
  auto imageOf = [&](std::map<llvm::GlobalVariable*, std::vector<uint8_t>>& in, llvm::GlobalVariable* global)
      -> std::vector<uint8_t>* {
    if (!global->hasInitializer() || global->getParent() != &module) return nullptr;
    auto it = in.find(global);
    if (it == in.end()) {
      std::vector<uint8_t> bytes(layout.getTypeAllocSize(global->getValueType()));
      if (!constantBytes(global->getInitializer(), layout, bytes.data())) return nullptr;
      it = in.emplace(global, std::move(bytes)).first;
    }
    return &it->second;
  };
  std::function<llvm::Constant*(llvm::Type*, const uint8_t*)> constantFromBytes =
      [&](llvm::Type* type, const uint8_t* bytes) -> llvm::Constant* {
    uint64_t size = layout.getTypeStoreSize(type);
    if (auto* array = llvm::dyn_cast<llvm::ArrayType>(type)) {
      std::vector<llvm::Constant*> elements;
      uint64_t stride = layout.getTypeAllocSize(array->getElementType());
      for (uint64_t i = 0; i < array->getNumElements(); ++i) {
        elements.push_back(constantFromBytes(array->getElementType(), bytes + i * stride));
        if (!elements.back()) return nullptr;
      }
      return llvm::ConstantArray::get(array, elements);
    }
    if (auto* structType = llvm::dyn_cast<llvm::StructType>(type)) {
      const llvm::StructLayout* fields = layout.getStructLayout(structType);
      std::vector<llvm::Constant*> elements;
      for (unsigned i = 0; i < structType->getNumElements(); ++i) {
        elements.push_back(constantFromBytes(structType->getElementType(i), bytes + fields->getElementOffset(i)));
        if (!elements.back()) return nullptr;
      }
      return llvm::ConstantStruct::get(structType, elements);
    }
    if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type))
      if (vector->getElementType()->isIntegerTy() || vector->getElementType()->isFloatingPointTy())
        return llvm::ConstantDataVector::getRaw(llvm::StringRef(reinterpret_cast<const char*>(bytes), size),
                                                vector->getNumElements(), vector->getElementType());
    if (!type->isIntegerTy() && !type->isFloatingPointTy()) return nullptr;
    llvm::APInt bits(unsigned(size * 8), 0);
    for (uint64_t b = 0; b < size; ++b) bits.insertBits(uint64_t(bytes[b]), unsigned(b * 8), 8);
    bits = bits.trunc(type->getPrimitiveSizeInBits().getFixedValue());
    if (type->isIntegerTy()) return llvm::ConstantInt::get(type, bits);
    return llvm::ConstantFP::get(type->getContext(), llvm::APFloat(type->getFltSemantics(), bits));
  };
  std::set<llvm::GlobalVariable*> written;
  auto evaluate = [&](llvm::Function& f) {
    if (f.size() != 1) return Step::Failed;
    std::map<llvm::GlobalVariable*, std::vector<uint8_t>> next = images;
    std::set<llvm::GlobalVariable*> writtenNext = written;
    for (llvm::Instruction& inst : f.front()) {
      if (llvm::isa<llvm::ReturnInst>(inst)) continue;
      if (auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        if (intrinsic->getIntrinsicID() == llvm::Intrinsic::invariant_start || intrinsic->isLifetimeStartOrEnd())
          continue;
      auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if ((!load && !store) || (load && load->isVolatile()) || (store && store->isVolatile())) return Step::Failed;
      llvm::Value* pointer = load ? load->getPointerOperand() : store->getPointerOperand();
      int64_t offset = 0;
      auto* global = llvm::dyn_cast_or_null<llvm::GlobalVariable>(
          llvm::GetPointerBaseWithConstantOffset(pointer, offset, layout));
      std::vector<uint8_t>* image = global ? imageOf(next, global) : nullptr;
      llvm::Type* type = load ? load->getType() : store->getValueOperand()->getType();
      uint64_t size = layout.getTypeStoreSize(type);
      if (!image || offset < 0 || uint64_t(offset) + size > image->size()) return Step::Failed;
      if (load) {
        llvm::Constant* value = constantFromBytes(type, image->data() + offset);
        if (!value) return Step::Failed;
        load->replaceAllUsesWith(value);
        load->eraseFromParent();
        return Step::Folded;
      }
      auto* value = llvm::dyn_cast<llvm::Constant>(store->getValueOperand());
      if (!value || !constantBytes(value, layout, image->data() + offset)) return Step::Failed;
      writtenNext.insert(global);
    }
    images = std::move(next);
    written = std::move(writtenNext);
    return Step::Done;
  };
  std::vector<llvm::Constant*> remaining;
  std::vector<llvm::Function*> evaluated;
  for (llvm::Value* op : entries->operands()) {
    auto* entry = llvm::cast<llvm::ConstantStruct>(op);
    auto* ctor = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
    // Only Clang's initialisers of program-scope variables; a function the program marked
    // __attribute__((constructor)) is code to run at load, which stays and is refused.
    if (!ctor || ctor->isDeclaration() || !ctor->getName().startswith("_GLOBAL__sub_I_")) {
      remaining.push_back(entry);
      continue;
    }
    Step step = Step::Folded;
    for (int round = 0; round < 1000 && step == Step::Folded; ++round) {
      simplify(*ctor);
      step = evaluate(*ctor);
    }
    if (step == Step::Done)
      evaluated.push_back(ctor);
    else
      remaining.push_back(entry);
  }
  // Each variable gets its image as its initial value (as bytes: the C++ type of a union of
  // vectors has no constant of its own for every image).
  for (auto& [global, bytes] : images) {
    if (!written.count(global)) continue;
    if (llvm::Constant* typed = constantFromBytes(global->getValueType(), bytes.data())) {
      global->setInitializer(typed);
      continue;
    }
    auto* init = llvm::ConstantDataArray::get(module.getContext(), llvm::ArrayRef<uint8_t>(bytes));
    auto* replacement = new llvm::GlobalVariable(module, init->getType(), global->isConstant(), global->getLinkage(),
                                                 init, "", global, global->getThreadLocalMode(),
                                                 global->getAddressSpace());
    replacement->copyAttributesFrom(global);
    replacement->setAlignment(global->getAlign());
    replacement->takeName(global);
    global->replaceAllUsesWith(replacement);
    global->eraseFromParent();
  }
  if (remaining.empty()) {
    list->eraseFromParent();
  } else {
    auto* type = llvm::ArrayType::get(entries->getType()->getElementType(), remaining.size());
    list->setInitializer(llvm::ConstantArray::get(type, remaining));
  }
  for (llvm::Function* f : evaluated)
    if (f->use_empty()) f->eraseFromParent();
}

void insertSimdLoopPositions(llvm::Function& entry) {
  auto isSimdHook = [](const llvm::Instruction& inst) {
    auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
    llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
    return callee && (callee->getName() == hook::kSimdExchange || callee->getName() == hook::kSimdgroupBarrier);
  };
  std::vector<llvm::Instruction*> calls;
  for (auto& bb : entry)
    for (auto& inst : bb)
      if (isSimdHook(inst)) calls.push_back(&inst);
  if (calls.empty()) return;
  llvm::DominatorTree dt(entry);
  llvm::LoopInfo loops(dt);
  unsigned deepest = 0;
  for (llvm::Instruction* c : calls) deepest = std::max(deepest, loops.getLoopDepth(c->getParent()));
  if (deepest == 0) return;
  // Preheaders and single back edges where the loops lack them.
  for (llvm::Loop* l : loops.getLoopsInPreorder()) llvm::simplifyLoop(l, &dt, &loops, nullptr, nullptr, nullptr, false);
  llvm::LLVMContext& ctx = entry.getContext();
  llvm::Module& module = *entry.getParent();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::FunctionCallee position = module.getOrInsertFunction(
      hook::kSimdLoopPosition,
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {llvm::PointerType::getUnqual(ctx), i32}, false));
  // The loops around some SIMD-group call (with their parents, which contain it too), each with
  // an id and its iteration count: a value of the kernel's own, 0 on entering the loop from
  // outside and one more at each back edge. A fiber keeps it on its stack while it waits; the
  // simulator hears of it only at the calls, not on every iteration.
  std::set<llvm::Loop*> marked;
  for (llvm::Instruction* c : calls)
    for (llvm::Loop* l = loops.getLoopFor(c->getParent()); l; l = l->getParentLoop()) marked.insert(l);
  std::map<llvm::Loop*, std::pair<uint32_t, llvm::PHINode*>> counted;
  for (llvm::Loop* l : loops.getLoopsInPreorder()) {
    if (!marked.count(l)) continue;
    llvm::BasicBlock* header = l->getHeader();
    auto* iteration = llvm::PHINode::Create(i32, 2, "simd.loop.iteration", &*header->getFirstInsertionPt());
    for (llvm::BasicBlock* from : llvm::predecessors(header)) {
      if (!l->contains(from)) {
        iteration->addIncoming(llvm::ConstantInt::get(i32, 0), from);
        continue;
      }
      llvm::Value* next = llvm::BinaryOperator::CreateAdd(iteration, llvm::ConstantInt::get(i32, 1),
                                                          "simd.loop.next", from->getTerminator());
      iteration->addIncoming(next, from);
    }
    counted[l] = {uint32_t(counted.size()), iteration};
  }
  // Before each call, the positions of the loops around it, outermost first: {id, iteration}.
  llvm::IRBuilder<> first(&*entry.getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* positions = first.CreateAlloca(llvm::ArrayType::get(i32, 2 * deepest), nullptr, "simd.loop.positions");
  for (llvm::Instruction* c : calls) {
    std::vector<llvm::Loop*> chain;
    for (llvm::Loop* l = loops.getLoopFor(c->getParent()); l; l = l->getParentLoop()) chain.push_back(l);
    std::reverse(chain.begin(), chain.end());
    llvm::IRBuilder<> b(c);
    for (size_t k = 0; k < chain.size(); ++k) {
      auto& [id, iteration] = counted.at(chain[k]);
      b.CreateStore(llvm::ConstantInt::get(i32, id), b.CreateConstInBoundsGEP1_32(i32, positions, unsigned(2 * k)));
      b.CreateStore(iteration, b.CreateConstInBoundsGEP1_32(i32, positions, unsigned(2 * k + 1)));
    }
    b.CreateCall(position, {positions, llvm::ConstantInt::get(i32, chain.size())});
  }
}

bool reachesSynchronisation(llvm::Function& entry) {
  std::set<llvm::Function*> seen{&entry};
  std::vector<llvm::Function*> work{&entry};
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (auto& bb : *f)
      for (auto& inst : bb) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (!call) continue;
        llvm::Function* callee = call->getCalledFunction();
        if (!callee) {
          if (!call->isInlineAsm()) return true;
          continue;
        }
        llvm::StringRef name = callee->getName();
        if (name == hook::kThreadgroupBarrier || name == hook::kSimdgroupBarrier ||
            name == hook::kSimdExchange)
          return true;
        if (!callee->isDeclaration() && seen.insert(callee).second) work.push_back(callee);
      }
  }
  return false;
}

}  // namespace mslsim

namespace mslsim {

namespace {

bool isSynchronisationHook(const llvm::Function* f) {
  if (!f) return false;
  llvm::StringRef name = f->getName();
  return name == hook::kThreadgroupBarrier || name == hook::kSimdgroupBarrier || name == hook::kSimdExchange;
}

}  // namespace

void stripDebugInfoKeepingLoopPositions(llvm::Function& f) {
  // What a timeout report needs, the position of each loop, is kept on the loops' instructions
  // (kLoopPositionKind; inner loops after outer ones, so an instruction carries its innermost loop).
  llvm::DominatorTree dt(f);
  llvm::LoopInfo loops(dt);
  for (llvm::Loop* l : loops.getLoopsInPreorder()) {
    const llvm::DILocation* where = l->getStartLoc().get();
    for (llvm::BasicBlock* bb : l->blocks())
      for (llvm::Instruction& inst : *bb) {
        if (!where) where = inst.getDebugLoc().get();
        if (where) inst.setMetadata(kLoopPositionKind, encodePosition(where, f.getContext()));
      }
  }
  llvm::stripDebugInfo(f);
}

llvm::Function* lowerSynchronisationToCoroutine(llvm::Function& entry, bool suspendAtStart) {
  // Every synchronisation point must be a hook call in `entry` itself: a coroutine can only
  // suspend in its own body, not in a function it calls.
  std::vector<llvm::CallInst*> hooks;
  std::vector<llvm::ReturnInst*> returns;
  for (auto& bb : entry)
    for (auto& inst : bb) {
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) returns.push_back(ret);
      auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
      if (!call) continue;
      llvm::Function* callee = call->getCalledFunction();
      if (!callee) {
        if (!call->isInlineAsm()) return nullptr;
        continue;
      }
      if (isSynchronisationHook(callee)) {
        auto* plain = llvm::dyn_cast<llvm::CallInst>(call);
        if (!plain) return nullptr;
        hooks.push_back(plain);
      } else if (!callee->isDeclaration() && reachesSynchronisation(*callee)) {
        return nullptr;
      }
    }

  llvm::Module& module = *entry.getParent();
  llvm::LLVMContext& ctx = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);

  // The same body in a function that returns its coroutine handle.
  auto* type = llvm::FunctionType::get(ptr, entry.getFunctionType()->params(), false);
  llvm::Function* coro = llvm::Function::Create(type, entry.getLinkage(), "", module);
  coro->copyAttributesFrom(&entry);  // a void function has no return attributes to carry over
  coro->removeFnAttr(llvm::Attribute::NoInline);
  coro->removeFnAttr(llvm::Attribute::OptimizeNone);
  coro->addFnAttr(llvm::Attribute::PresplitCoroutine);
  coro->takeName(&entry);
  coro->splice(coro->end(), &entry);
  for (unsigned i = 0; i < entry.arg_size(); ++i) {
    coro->getArg(i)->takeName(entry.getArg(i));
    entry.getArg(i)->replaceAllUsesWith(coro->getArg(i));
  }
  // LLVM 16's coroutine frame builder crashes on functions with debug information
  // (FindDbgAddrUses); access sites were resolved to source positions before this point, and
  // barrier sites carry their own.
  stripDebugInfoKeepingLoopPositions(*coro);
  entry.setSubprogram(nullptr);
  entry.replaceAllUsesWith(coro);  // llvm.compiler.used keeps the entry alive
  entry.eraseFromParent();

  // Frame: memory the simulator gives each thread, sized by the coroutine split.
  llvm::BasicBlock& first = coro->getEntryBlock();
  llvm::BasicBlock::iterator at = first.begin();
  while (llvm::isa<llvm::AllocaInst>(*at)) ++at;
  llvm::IRBuilder<> b(&first, at);
  llvm::Value* null = llvm::ConstantPointerNull::get(ptr);
  llvm::Value* id = b.CreateIntrinsic(llvm::Intrinsic::coro_id, {}, {b.getInt32(kCoroutineFrameAlignment), null, null, null});
  llvm::Value* size = b.CreateIntrinsic(llvm::Intrinsic::coro_size, {i64}, {});
  llvm::Value* align = b.CreateIntrinsic(llvm::Intrinsic::coro_align, {i64}, {});
  llvm::FunctionCallee frameHook =
      module.getOrInsertFunction(hook::kCoroutineFrame, llvm::FunctionType::get(ptr, {i64, i64}, false));
  llvm::Value* memory = b.CreateCall(frameHook, {size, align});
  llvm::Value* handle = b.CreateIntrinsic(llvm::Intrinsic::coro_begin, {}, {id, memory});

  // Suspended (or finished): return to the scheduler. Destroyed: nothing to free, the simulator
  // owns the frame.
  llvm::BasicBlock* suspended = llvm::BasicBlock::Create(ctx, "coro.suspended", coro);
  llvm::BasicBlock* cleanup = llvm::BasicBlock::Create(ctx, "coro.cleanup", coro);
  llvm::BasicBlock* finalSuspend = llvm::BasicBlock::Create(ctx, "coro.final", coro);
  llvm::BasicBlock* never = llvm::BasicBlock::Create(ctx, "coro.final.resumed", coro);
  {
    llvm::IRBuilder<> sb(suspended);
    sb.CreateIntrinsic(llvm::Intrinsic::coro_end, {}, {handle, sb.getFalse()});
    sb.CreateRet(handle);
    llvm::IRBuilder<> cb(cleanup);
    cb.CreateIntrinsic(llvm::Intrinsic::coro_free, {}, {id, handle});
    cb.CreateBr(suspended);
    llvm::IRBuilder<> fb(finalSuspend);
    llvm::Value* s = fb.CreateIntrinsic(llvm::Intrinsic::coro_suspend, {}, {llvm::ConstantTokenNone::get(ctx), fb.getTrue()});
    llvm::SwitchInst* sw = fb.CreateSwitch(s, suspended, 2);
    sw->addCase(fb.getInt8(0), never);
    sw->addCase(fb.getInt8(1), cleanup);
    llvm::IRBuilder<>(never).CreateUnreachable();
  }
  for (llvm::ReturnInst* ret : returns) {
    llvm::BranchInst::Create(finalSuspend, ret);
    ret->eraseFromParent();
  }
  if (suspendAtStart) {
    // The ramp only sets the frame up; the body is in the resume function alone.
    llvm::BasicBlock* body = first.splitBasicBlock(llvm::cast<llvm::Instruction>(handle)->getNextNode(), "coro.start");
    first.getTerminator()->eraseFromParent();
    llvm::IRBuilder<> sb(&first);
    llvm::Value* s = sb.CreateIntrinsic(llvm::Intrinsic::coro_suspend, {}, {llvm::ConstantTokenNone::get(ctx), sb.getFalse()});
    llvm::SwitchInst* sw = sb.CreateSwitch(s, suspended, 2);
    sw->addCase(sb.getInt8(0), body);
    sw->addCase(sb.getInt8(1), cleanup);
  }

  // Each hook records where the thread waits; the coroutine then suspends until the scheduler
  // releases it. A SIMD-group exchange's result (the active-lane mask) is read after the resume.
  llvm::FunctionCallee resultHook = module.getOrInsertFunction(hook::kSimdResult, llvm::FunctionType::get(i32, false));
  for (llvm::CallInst* call : hooks) {
    llvm::BasicBlock* block = call->getParent();
    llvm::BasicBlock* resumed = block->splitBasicBlock(call->getNextNode(), block->getName() + ".resumed");
    block->getTerminator()->eraseFromParent();
    llvm::IRBuilder<> hb(block);
    hb.SetCurrentDebugLocation(call->getDebugLoc());
    llvm::Value* s = hb.CreateIntrinsic(llvm::Intrinsic::coro_suspend, {}, {llvm::ConstantTokenNone::get(ctx), hb.getFalse()});
    llvm::SwitchInst* sw = hb.CreateSwitch(s, suspended, 2);
    sw->addCase(hb.getInt8(0), resumed);
    sw->addCase(hb.getInt8(1), cleanup);
    if (call->getCalledFunction()->getName() == hook::kSimdExchange && !call->use_empty()) {
      llvm::IRBuilder<> rb(resumed, resumed->getFirstInsertionPt());
      rb.SetCurrentDebugLocation(call->getDebugLoc());
      call->replaceAllUsesWith(rb.CreateCall(resultHook));
    }
  }
  return coro;
}

}  // namespace mslsim

namespace mslsim {

namespace {

// A function the JIT builds around a kernel's code (its loops over threads and SIMD-groups) is
// compiled as the kernel is: the target CPU and its features, and stack probes ("probe-stack"),
// without which a large private array moves the stack pointer past the guard page in one step and
// the overflow is not recognised as one.
llvm::Function* createKernelLoop(llvm::Function& kernel, llvm::FunctionType* type, const std::string& name) {
  llvm::Function* loop = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, *kernel.getParent());
  loop->addFnAttr(llvm::Attribute::NoUnwind);
  for (const llvm::Attribute& attribute : kernel.getAttributes().getFnAttrs())
    if (attribute.isStringAttribute()) loop->addFnAttr(attribute);
  return loop;
}

void lowerRangeCheck(llvm::CallInst* call) {
  llvm::IRBuilder<> b(call);
  llvm::Value *address = call->getArgOperand(0), *size = call->getArgOperand(1);
  llvm::Value *begin = call->getArgOperand(2), *end = call->getArgOperand(3);
  // begin <= address && address + size <= end as one unsigned compare of the address's offset
  // (an address below begin wraps around to a large offset) against a limit that depends on the
  // range alone, so that it leaves loops: where address + size could not fit, the limit is 0.
  llvm::Value* span = b.CreateSub(end, begin);
  llvm::Value* limit = b.CreateSelect(b.CreateICmpUGE(span, size), b.CreateAdd(b.CreateSub(span, size), b.getInt64(1)),
                                      b.getInt64(0));
  llvm::Value* inside = b.CreateICmpULT(b.CreateSub(address, begin), limit);
  call->replaceAllUsesWith(inside);
  call->eraseFromParent();
}

std::vector<llvm::CallInst*> rangeChecksIn(llvm::Function& f) {
  std::vector<llvm::CallInst*> calls;
  for (auto& bb : f)
    for (auto& inst : bb)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (llvm::Function* callee = call->getCalledFunction())
          if (callee->getName() == hook::kInRange) calls.push_back(call);
  return calls;
}

// A loop that counts up to a bound it does not change, by a step it does not change:
// `for (uint i = start; i < n; i += step)`, or the same with `int`. When SCEV cannot count its
// iterations (C++ lets an unsigned `i += step` wrap around) or counting them takes a division per
// thread (a step only known at run time, `i += threads_per_threadgroup`), the range of what
// an access reaches follows from the counter's: i stays in [start, n - 1].
struct Counter {
  llvm::BinaryOperator* increment;
  llvm::Value *start, *step, *bound;
  bool isSigned;
  bool mayWrap;  // unsigned, without `nuw`
  // Run-time conditions for the above: step > 0, and an unsigned counter that may wrap around
  // does not (n <= max - (step - 1), since every i in the loop is below n, and start <= max -
  // step, for a test after the increment).
  llvm::Value* holds(llvm::IRBuilder<>& b) const {
    llvm::Type* t = step->getType();
    llvm::Value* zero = llvm::ConstantInt::get(t, 0);
    if (isSigned) return b.CreateICmpSGT(step, zero);
    llvm::Value* positive = b.CreateICmpNE(step, zero);
    if (!mayWrap) return positive;
    llvm::Value* room = b.CreateSub(llvm::ConstantInt::getAllOnesValue(t), step);  // max - step
    return b.CreateAnd(positive, b.CreateAnd(b.CreateICmpULE(bound, b.CreateAdd(room, llvm::ConstantInt::get(t, 1))),
                                             b.CreateICmpULE(start, room)));
  }
  // (n - 1) - start: how far the counter's last value can be from its first, widened to `wide`.
  llvm::Value* span(llvm::IRBuilder<>& b, llvm::Type* wide) const {
    auto widen = [&](llvm::Value* v) { return isSigned ? b.CreateSExt(v, wide) : b.CreateZExt(v, wide); };
    return b.CreateSub(b.CreateSub(widen(bound), llvm::ConstantInt::get(wide, 1)), widen(start));
  }
};

std::optional<Counter> countingLoop(llvm::Loop& loop) {
  llvm::BasicBlock* exiting = loop.getExitingBlock();
  llvm::BasicBlock* preheader = loop.getLoopPreheader();
  llvm::BasicBlock* latch = loop.getLoopLatch();
  auto* branch = exiting ? llvm::dyn_cast<llvm::BranchInst>(exiting->getTerminator()) : nullptr;
  if (!branch || !branch->isConditional() || !latch || !preheader) return std::nullopt;
  auto* compare = llvm::dyn_cast<llvm::ICmpInst>(branch->getCondition());
  if (!compare) return std::nullopt;
  // The loop goes on while `counter < bound` (either way round, either branch order).
  llvm::ICmpInst::Predicate p = compare->getPredicate();
  llvm::Value *counterValue = compare->getOperand(0), *bound = compare->getOperand(1);
  if (!loop.contains(branch->getSuccessor(0))) p = llvm::ICmpInst::getInversePredicate(p);
  if (p == llvm::ICmpInst::ICMP_UGT || p == llvm::ICmpInst::ICMP_SGT) {
    std::swap(counterValue, bound);
    p = llvm::ICmpInst::getSwappedPredicate(p);
  }
  if ((p != llvm::ICmpInst::ICMP_ULT && p != llvm::ICmpInst::ICMP_SLT) || !loop.isLoopInvariant(bound))
    return std::nullopt;
  bool isSigned = p == llvm::ICmpInst::ICMP_SLT;
  // The counter is the header's phi or its increment.
  auto* increment = llvm::dyn_cast<llvm::BinaryOperator>(counterValue);
  auto* phi = llvm::dyn_cast<llvm::PHINode>(counterValue);
  if (phi && phi->getParent() == loop.getHeader() && phi->getNumIncomingValues() == 2)
    increment = llvm::dyn_cast<llvm::BinaryOperator>(phi->getIncomingValueForBlock(latch));
  if (!increment || increment->getOpcode() != llvm::Instruction::Add) return std::nullopt;
  if (isSigned && !increment->hasNoSignedWrap()) return std::nullopt;
  if (!phi) phi = llvm::dyn_cast<llvm::PHINode>(increment->getOperand(0));
  if (!phi || phi->getParent() != loop.getHeader() || phi->getNumIncomingValues() != 2 ||
      phi->getIncomingValueForBlock(latch) != increment)
    return std::nullopt;
  llvm::Value* step = increment->getOperand(1);
  if (increment->getOperand(0) != phi || !loop.isLoopInvariant(step)) return std::nullopt;
  return Counter{increment, phi->getIncomingValueForBlock(preheader), step, bound, isSigned,
                 !isSigned && !increment->hasNoUnsignedWrap()};
}

// The condition, computed before `loop`, under which the range check `call` passes on every
// iteration, or null when its address is not an affine function of the loop's iterations. The
// loop's extent is its backedge-taken count, or the counter's range (byCounter).
llvm::Value* holdsThroughout(llvm::CallInst* call, llvm::Loop& loop, llvm::ScalarEvolution& scev,
                             llvm::PredicatedScalarEvolution& predicated, llvm::SCEVExpander& expander,
                             const llvm::SCEV* lastIteration, const Counter* byCounter) {
  llvm::Value *size = call->getArgOperand(1), *begin = call->getArgOperand(2), *end = call->getArgOperand(3);
  // The filter's reads may still be inside the loop, in the branch of a condition around the
  // access: they move out (the table always has every site's range, and it does not change while
  // the loop runs: the reads are marked invariant).
  llvm::Instruction* at = loop.getLoopPreheader()->getTerminator();
  auto hoist = [&](llvm::Value* v) {
    if (loop.isLoopInvariant(v)) return true;
    auto* read = llvm::dyn_cast<llvm::LoadInst>(v);
    if (!read || !read->hasMetadata(llvm::LLVMContext::MD_invariant_load)) return false;
    auto* element = llvm::dyn_cast<llvm::GetElementPtrInst>(read->getPointerOperand());
    if (element && !loop.isLoopInvariant(element)) {
      if (!loop.hasLoopInvariantOperands(element)) return false;
      element->moveBefore(at);
    } else if (!loop.isLoopInvariant(read->getPointerOperand())) {
      return false;
    }
    read->moveBefore(at);
    return true;
  };
  for (llvm::Value* v : {size, begin, end})
    if (!hoist(v)) return nullptr;
  llvm::Type* i64 = call->getArgOperand(0)->getType();
  llvm::IRBuilder<> b(at);
  const llvm::SCEV* first = scev.getSCEV(call->getArgOperand(0));
  llvm::Value* low = nullptr;
  llvm::Value* high = nullptr;
  llvm::Value* strideBelow = nullptr;
  if (scev.isLoopInvariant(first, &loop)) {  // an address the same on every iteration (`constant T&`)
    low = high = expander.expandCodeFor(first, i64, at);
  } else if (byCounter) {
    // address = first + c * (i - start) for a constant c: the stride is c times the counter's step.
    auto* address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(first);
    if (!address || address->getLoop() != &loop || !address->isAffine()) return nullptr;
    const llvm::SCEV* stride = address->getStepRecurrence(scev);
    const llvm::SCEV* step = scev.getSCEV(byCounter->step);
    const llvm::SCEV* wideStep = byCounter->isSigned ? scev.getSignExtendExpr(step, i64) : scev.getZeroExtendExpr(step, i64);
    std::optional<llvm::APInt> c;
    if (stride == wideStep) {
      c = llvm::APInt(64, 1);
    } else if (auto* product = llvm::dyn_cast<llvm::SCEVMulExpr>(stride);
               product && product->getNumOperands() == 2 && product->getOperand(1) == wideStep) {
      if (auto* k = llvm::dyn_cast<llvm::SCEVConstant>(product->getOperand(0))) c = k->getAPInt();
    } else if (auto* k = llvm::dyn_cast<llvm::SCEVConstant>(stride)) {
      if (auto* n = llvm::dyn_cast<llvm::SCEVConstant>(wideStep); n && !n->getAPInt().isZero() &&
                                                                   k->getAPInt().srem(n->getAPInt()).isZero())
        c = k->getAPInt().sdiv(n->getAPInt());
    }
    if (!c || c->abs().ugt(1ull << 32)) return nullptr;
    llvm::Value* firstAddress = expander.expandCodeFor(address->getStart(), i64, at);
    llvm::Value* lastAddress = b.CreateAdd(firstAddress, b.CreateMul(byCounter->span(b, i64), llvm::ConstantInt::get(i64, *c)));
    low = c->isNegative() ? lastAddress : firstAddress;
    high = c->isNegative() ? firstAddress : lastAddress;
  } else {
    // `base[2 * gid + 1]` in 32-bit unsigned arithmetic is affine only while it does not wrap
    // around: then the versioning condition also asks that it does not (a SCEV predicate).
    const llvm::SCEVAddRecExpr* address = predicated.getAsAddRec(call->getArgOperand(0));
    if (!address || address->getLoop() != &loop || !address->isAffine()) return nullptr;
    const llvm::SCEV* stride = address->getStepRecurrence(scev);
    auto* step = llvm::dyn_cast<llvm::SCEVConstant>(stride);
    first = address->getStart();
    if (!scev.isLoopInvariant(first, &loop) || !scev.isLoopInvariant(stride, &loop)) return nullptr;
    if (step && step->getAPInt().abs().ugt(1ull << 32)) return nullptr;
    // The address on the last iteration; the loop's iterations cover [first, last] (or [last,
    // first] for a negative stride) in steps no wider than an access, or skip bytes in between.
    const llvm::SCEV* last = address->evaluateAtIteration(lastIteration, scev);
    bool down = step && step->getAPInt().isNegative();
    // A stride known only when the loop runs: below 2^32 bytes, so that first + stride *
    // iterations cannot wrap around; a negative one fails low <= high.
    if (!step) strideBelow = expander.expandCodeFor(stride, i64, at);
    low = expander.expandCodeFor(down ? last : first, i64, at);
    high = expander.expandCodeFor(down ? first : last, i64, at);
  }
  b.SetInsertPoint(at);
  // Unsigned, as the check itself: high + size must not wrap around either.
  llvm::Value* highEnd = b.CreateAdd(high, size);
  llvm::Value* holds = b.CreateAnd(b.CreateAnd(b.CreateICmpUGE(low, begin), b.CreateICmpULE(highEnd, end)),
                                   b.CreateAnd(b.CreateICmpULE(low, high), b.CreateICmpUGE(highEnd, high)));
  if (strideBelow) holds = b.CreateAnd(holds, b.CreateICmpULE(strideBelow, llvm::ConstantInt::get(i64, 1ull << 32)));
  return holds;
}

// The loop's own tests of a value that moves by a fixed step against a bound (`if (gid < n)` in
// a loop over threads): branches, other than the loop's exit, on an order comparison.
std::vector<llvm::ICmpInst*> guardsIn(llvm::Loop& loop) {
  std::vector<llvm::ICmpInst*> guards;
  for (llvm::BasicBlock* bb : loop.blocks()) {
    auto* branch = llvm::dyn_cast<llvm::BranchInst>(bb->getTerminator());
    if (!branch || !branch->isConditional() || bb == loop.getExitingBlock()) continue;
    auto* compare = llvm::dyn_cast<llvm::ICmpInst>(branch->getCondition());
    if (compare && compare->isRelational() && loop.contains(compare) && compare->hasOneUse()) guards.push_back(compare);
  }
  return guards;
}

// The condition, computed before `loop`, under which `guard` is true on every iteration, or null:
// a value affine in the iterations is on one side of a bound on every iteration when it is on
// the first and the last.
llvm::Value* guardHoldsThroughout(llvm::ICmpInst* guard, llvm::Loop& loop, llvm::ScalarEvolution& scev,
                                  llvm::PredicatedScalarEvolution& predicated, llvm::SCEVExpander& expander,
                                  const llvm::SCEV* lastIteration) {
  llvm::Value *moving = guard->getOperand(0), *bound = guard->getOperand(1);
  llvm::ICmpInst::Predicate p = guard->getPredicate();
  if (loop.isLoopInvariant(moving)) {
    std::swap(moving, bound);
    p = llvm::ICmpInst::getSwappedPredicate(p);
  }
  if (!loop.isLoopInvariant(bound) || !moving->getType()->isIntegerTy()) return nullptr;
  const llvm::SCEVAddRecExpr* value = predicated.getAsAddRec(moving);
  if (!value || value->getLoop() != &loop || !value->isAffine() || !scev.isLoopInvariant(value->getStart(), &loop) ||
      !scev.isLoopInvariant(value->getStepRecurrence(scev), &loop))
    return nullptr;
  llvm::Instruction* at = loop.getLoopPreheader()->getTerminator();
  llvm::Value* first = expander.expandCodeFor(value->getStart(), moving->getType(), at);
  llvm::Value* last = expander.expandCodeFor(value->evaluateAtIteration(lastIteration, scev), moving->getType(), at);
  llvm::IRBuilder<> b(at);
  return b.CreateAnd(b.CreateICmp(p, first, bound), b.CreateICmp(p, last, bound));
}

bool versionLoop(llvm::Loop& loop, llvm::LoopInfo& loops, llvm::DominatorTree& dominators, llvm::ScalarEvolution& scev,
                 const llvm::DataLayout& layout, bool withGuards, bool guardsOnly) {
  llvm::BasicBlock* preheader = loop.getLoopPreheader();
  llvm::BasicBlock* exit = loop.getExitBlock();
  if (!preheader || !exit || !loop.isLoopSimplifyForm() || !loop.getExitingBlock()) return false;
  std::vector<llvm::CallInst*> checks;
  for (llvm::BasicBlock* bb : loop.blocks())
    for (auto& inst : *bb)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (llvm::Function* callee = call->getCalledFunction()) {
          if (callee->getName() == hook::kInRange) checks.push_back(call);
          // Guards alone: not in the checked copies the first versioning left (slow anyway).
          if (guardsOnly && callee->getName() == hook::kAccess) return false;
        }
  if (guardsOnly) checks.clear();
  // Checks whose every operand is the same on every iteration were moved out of the loop already
  // (the branches on them stay in): they join the condition as they are.
  std::vector<llvm::CallInst*> invariantChecks;
  for (llvm::CallInst* call : guardsOnly ? std::vector<llvm::CallInst*>() : rangeChecksIn(*preheader->getParent()))
    if (!loop.contains(call) && dominators.dominates(call, preheader->getTerminator()) &&
        std::any_of(call->user_begin(), call->user_end(), [&](llvm::User* u) {
          return llvm::isa<llvm::Instruction>(u) && loop.contains(llvm::cast<llvm::Instruction>(u));
        }))
      invariantChecks.push_back(call);
  std::vector<llvm::ICmpInst*> guards;
  if (withGuards) guards = guardsIn(loop);
  if (checks.empty() && invariantChecks.empty() && guards.empty()) return false;
  // Values of the loop used after it leave through the exit's phis (LCSSA), which then take the
  // copy's values too; other uses would need phis made for them.
  for (llvm::BasicBlock* bb : loop.blocks())
    for (auto& inst : *bb)
      for (llvm::User* user : inst.users())
        if (auto* userInst = llvm::dyn_cast<llvm::Instruction>(user))
          if (!loop.contains(userInst) && !(llvm::isa<llvm::PHINode>(userInst) && userInst->getParent() == exit))
            return false;
  // How far the loop goes: its backedge-taken count, or, where SCEV cannot count the iterations
  // or counting them would divide by a run-time step, its counter's range.
  std::optional<Counter> counter = countingLoop(loop);
  const bool byCounter = counter && (counter->mayWrap || !llvm::isa<llvm::ConstantInt>(counter->step));
  if (!byCounter) counter.reset();
  if (counter && counter->mayWrap) {
    // Analysed as the counter that does not wrap around it is under the condition; only the
    // copy, which runs under that condition, keeps the `nuw`.
    counter->increment->setHasNoUnsignedWrap(true);
    scev.forgetLoop(&loop);
  }
  auto giveUp = [&] {
    if (counter && counter->mayWrap) {
      counter->increment->setHasNoUnsignedWrap(false);
      scev.forgetLoop(&loop);
    }
    return false;
  };
  llvm::PredicatedScalarEvolution predicated(scev, loop);
  llvm::SCEVExpander expander(scev, layout, "range.versioning");
  const llvm::SCEV* backedges = nullptr;
  llvm::Value* fewIterations = nullptr;
  if (!counter) {
    // The trip count, under run-time conditions where SCEV needs them, which then join the
    // versioning condition.
    backedges = predicated.getBackedgeTakenCount();
    if (llvm::isa<llvm::SCEVCouldNotCompute>(backedges) || !scev.isLoopInvariant(backedges, &loop)) return giveUp();
    // Below 2^32 iterations of strides below 2^32 bytes: the last address is first + stride *
    // iterations without the product wrapping around, and holdsThroughout sees the sum wrap.
    if (scev.getUnsignedRangeMax(backedges).getActiveBits() > 32) {
      if (llvm::isa<llvm::SCEVConstant>(backedges)) return giveUp();
      llvm::Value* count = expander.expandCodeFor(backedges, backedges->getType(), preheader->getTerminator());
      fewIterations = llvm::IRBuilder<>(preheader->getTerminator())
                          .CreateICmpULT(count, llvm::ConstantInt::get(count->getType(), 1ull << 32));
    }
  }
  llvm::IRBuilder<> b(preheader->getTerminator());
  llvm::Value* condition = nullptr;
  auto require = [&](llvm::Value* holds) { condition = condition ? b.CreateAnd(condition, holds) : holds; };
  std::vector<llvm::CallInst*> eliminated;
  for (llvm::CallInst* call : invariantChecks) require(call);
  for (llvm::CallInst* call : checks)
    if (llvm::Value* holds = holdsThroughout(call, loop, scev, predicated, expander, backedges,
                                             counter ? &*counter : nullptr)) {
      require(holds);
      eliminated.push_back(call);
    }
  std::vector<llvm::ICmpInst*> settled;  // guards true throughout
  if (backedges)
    for (llvm::ICmpInst* guard : guards)
      if (llvm::Value* holds = guardHoldsThroughout(guard, loop, scev, predicated, expander, backedges)) {
        require(holds);
        settled.push_back(guard);
      }
  if (!condition) return giveUp();
  if (fewIterations) require(fewIterations);
  const llvm::SCEVPredicate& noWrap = predicated.getPredicate();
  if (!noWrap.isAlwaysTrue())  // the expansion is true where the predicate fails
    require(b.CreateNot(expander.expandCodeForPredicate(&noWrap, preheader->getTerminator())));
  if (counter) {
    // What was computed assuming the counter does not wrap may be poison where it does.
    if (counter->mayWrap) counter->increment->setHasNoUnsignedWrap(false);
    condition = b.CreateSelect(counter->holds(b), b.CreateFreeze(condition), b.getFalse());
  }

  // The preheader becomes the test; the original loop gets a new preheader, and the copy (from a
  // copy of that preheader) the branch where the condition holds.
  llvm::BasicBlock* checked = llvm::SplitBlock(preheader, preheader->getTerminator(), &dominators, &loops, nullptr,
                                               "range.checked");
  llvm::ValueToValueMapTy map;
  llvm::SmallVector<llvm::BasicBlock*, 8> blocks;
  llvm::Loop* fast = llvm::cloneLoopWithPreheader(checked, preheader, &loop, map, ".in.range", &loops, &dominators, blocks);
  llvm::remapInstructionsInBlocks(blocks, map);
  llvm::Instruction* branch = preheader->getTerminator();
  llvm::BranchInst::Create(fast->getLoopPreheader(), checked, condition, branch);
  branch->eraseFromParent();
  dominators.changeImmediateDominator(exit, preheader);
  // The exit's phis (LCSSA) take the copy's values too.
  llvm::BasicBlock* exiting = loop.getExitingBlock();
  auto* fastExiting = llvm::cast<llvm::BasicBlock>(map[exiting]);
  for (llvm::PHINode& phi : exit->phis()) {
    llvm::Value* v = phi.getIncomingValueForBlock(exiting);
    auto mapped = map.find(v);
    phi.addIncoming(mapped != map.end() ? static_cast<llvm::Value*>(mapped->second) : v, fastExiting);
  }
  if (counter && counter->mayWrap) llvm::cast<llvm::BinaryOperator>(map[counter->increment])->setHasNoUnsignedWrap(true);
  llvm::LLVMContext& ctx = preheader->getContext();
  for (llvm::CallInst* call : eliminated) {
    auto* copy = llvm::cast<llvm::CallInst>(map[call]);
    copy->replaceAllUsesWith(llvm::ConstantInt::getTrue(ctx));
    copy->eraseFromParent();
  }
  for (llvm::CallInst* call : invariantChecks)
    for (llvm::BasicBlock* bb : fast->blocks())
      for (auto& inst : *bb) inst.replaceUsesOfWith(call, llvm::ConstantInt::getTrue(ctx));
  for (llvm::ICmpInst* guard : settled) {
    auto* copy = llvm::cast<llvm::ICmpInst>(map[guard]);
    copy->replaceAllUsesWith(llvm::ConstantInt::getTrue(ctx));
    copy->eraseFromParent();
  }
  return true;
}

}  // namespace

llvm::PreservedAnalyses DropHookSlotLifetimesPass::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  std::vector<llvm::Instruction*> markers;
  for (llvm::Instruction& inst : llvm::instructions(f))
    if (auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst); intrinsic && intrinsic->isLifetimeStartOrEnd())
      if (auto* slot = llvm::dyn_cast<llvm::AllocaInst>(intrinsic->getArgOperand(1)->stripPointerCasts());
          slot && slot->hasMetadata(kHookSlotKind))
        markers.push_back(intrinsic);
  for (llvm::Instruction* marker : markers) marker->eraseFromParent();
  return markers.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
}

llvm::PreservedAnalyses RangeCheckVersioningPass::run(llvm::Function& f, llvm::FunctionAnalysisManager& analyses) {
  if (rangeChecksIn(f).empty() && !(guardsIn && guardsIn(f))) return llvm::PreservedAnalyses::all();
  auto& loops = analyses.getResult<llvm::LoopAnalysis>(f);
  auto& dominators = analyses.getResult<llvm::DominatorTreeAnalysis>(f);
  auto& scev = analyses.getResult<llvm::ScalarEvolutionAnalysis>(f);
  std::vector<llvm::Loop*> innermost;
  for (llvm::Loop* l : loops.getLoopsInPreorder())
    if (l->isInnermost() && (!mayVersion || mayVersion(*l))) innermost.push_back(l);
  const bool withGuards = guardsIn && guardsIn(f);
  for (llvm::Loop* l : innermost)
    versionLoop(*l, loops, dominators, scev, f.getParent()->getDataLayout(), withGuards, guardsOnly);
  for (llvm::CallInst* call : rangeChecksIn(f)) lowerRangeCheck(call);
  return llvm::PreservedAnalyses::none();
}

namespace {
// The hook::kAccess calls of `f` whose constant site and size `wanted` takes, and f's call of
// hook::kAccessFilter (null: none, and then no hooks either).
template <class Wanted>
std::pair<llvm::CallInst*, std::vector<llvm::CallInst*>> accessHooksOf(llvm::Function& f, const Wanted& wanted) {
  llvm::CallInst* filter = nullptr;
  std::vector<llvm::CallInst*> hooks;
  for (auto& bb : f)
    for (auto& inst : bb)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (llvm::Function* callee = call->getCalledFunction()) {
          if (callee->getName() == hook::kAccessFilter && !filter) filter = call;
          if (callee->getName() != hook::kAccess) continue;
          auto* site = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(2));
          auto* size = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
          if (site && size && wanted(site->getZExtValue(), size->getZExtValue())) hooks.push_back(call);
        }
  if (!filter) hooks.clear();
  return {filter, hooks};
}

// The blocks of a two-stage inline test in front of an access hook call: `first` (the call's
// block up to the call, without a terminator: the first stage branches to `second` or `hook`),
// `second` (empty: the second stage branches to `join` or `hook`), `hook` (the call). In `join`,
// the access goes ahead from `second` as the hook would let it.
struct HookBypass {
  llvm::BasicBlock *first, *second, *hook, *join;
};
HookBypass bypassHook(llvm::CallInst* call, const std::string& prefix) {
  HookBypass b;
  b.first = call->getParent();
  b.hook = b.first->splitBasicBlock(call, prefix + ".hook");
  b.join = b.hook->splitBasicBlock(call->getNextNode(), prefix + ".join");
  b.second = llvm::BasicBlock::Create(call->getContext(), prefix + ".second", call->getFunction(), b.hook);
  b.first->getTerminator()->eraseFromParent();
  llvm::IRBuilder<> j(&*b.join->begin());
  llvm::PHINode* allowed = j.CreatePHI(call->getType(), 2, prefix + ".allowed");
  call->replaceAllUsesWith(allowed);
  allowed->addIncoming(llvm::ConstantInt::get(call->getType(), 1), b.second);
  allowed->addIncoming(call, b.hook);
  return b;
}
}  // namespace

void addSettledReadTests(llvm::Function& f, const std::vector<AccessSite>& sites) {
  auto [filter, hooks] = accessHooksOf(f, [&](uint64_t site, uint64_t size) {
    return size <= 4 && site < sites.size() && sites[site].op == AccessOp::Load && sites[site].threadgroupOffset >= 0;
  });
  if (hooks.empty()) return;
  llvm::LLVMContext& ctx = f.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  const uint64_t count = sites.size();
  for (llvm::CallInst* call : hooks) {
    uint64_t site = llvm::cast<llvm::ConstantInt>(call->getArgOperand(2))->getZExtValue();
    uint64_t size = llvm::cast<llvm::ConstantInt>(call->getArgOperand(1))->getZExtValue();
    // first: the read inside its settled range and one word ? second : hook; second: tag == key ? join : hook
    HookBypass blocks = bypassHook(call, "settled");
    llvm::MDNode* invariant = llvm::MDNode::get(ctx, {});
    llvm::IRBuilder<> b(blocks.first);
    // The settled range and the test's entry are the threadgroup's, as the site filters are.
    llvm::Value* range = b.CreateConstInBoundsGEP1_64(i64, filter, 2 * (count + 1 + site));
    llvm::LoadInst* lo = b.CreateLoad(i64, range, "settled.begin");
    llvm::LoadInst* hi = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, range, 1), "settled.end");
    for (llvm::LoadInst* l : {lo, hi}) l->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    llvm::Value* address = b.CreatePtrToInt(call->getArgOperand(0), i64);
    llvm::Value* bytes = llvm::ConstantInt::get(i64, size);
    llvm::Value* inside = b.CreateAnd(b.CreateICmpUGE(address, lo), b.CreateICmpULE(b.CreateAdd(address, bytes), hi));
    llvm::Value* oneWord = b.CreateICmpULE(b.CreateAdd(b.CreateAnd(address, 3), bytes), llvm::ConstantInt::get(i64, 4));
    b.CreateCondBr(b.CreateAnd(inside, oneWord), blocks.second, blocks.hook);

    b.SetInsertPoint(blocks.second);
    llvm::Value* entry = b.CreateConstInBoundsGEP1_64(i64, filter, 2 * count);
    llvm::LoadInst* bias = b.CreateLoad(i64, entry, "settled.bias");
    llvm::LoadInst* keyAddress = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i64, entry, 1), "settled.key.address");
    for (llvm::LoadInst* l : {bias, keyAddress}) l->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    // The tag and the key change at every barrier and at accesses the checkers see: plain loads.
    llvm::Value* tagAddress = b.CreateIntToPtr(b.CreateAdd(bias, b.CreateAnd(address, ~uint64_t(3))), ptr);
    llvm::Value* tag = b.CreateLoad(i32, tagAddress, "settled.tag");
    llvm::Value* key = b.CreateLoad(i32, keyAddress, "settled.key");
    // Or settled for the running thread's SIMD-group: the key's generation, who = 1 + SIMD-group.
    llvm::LoadInst* threadAddress =
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(i64, filter, 2 * (2 * count + 1)), "settled.thread.address");
    threadAddress->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    llvm::Value* thread = b.CreateLoad(i32, threadAddress, "settled.thread");
    llvm::Value* ownKey = b.CreateOr(b.CreateAnd(key, ~((1u << kSettledWhoBits) - 1)),
                                     b.CreateAdd(b.CreateUDiv(thread, b.getInt32(kSimdWidth)), b.getInt32(1)));
    llvm::Value* settled = b.CreateOr(b.CreateICmpEQ(tag, key), b.CreateICmpEQ(tag, ownKey));
    b.CreateCondBr(settled, blocks.join, blocks.hook);
  }
}

void addStoreClaims(llvm::Function& f, const std::vector<AccessSite>& sites) {
  auto [filter, hooks] = accessHooksOf(f, [&](uint64_t site, uint64_t size) {
    return size == 4 && site < sites.size() && sites[site].op == AccessOp::Store && sites[site].param >= 0;
  });
  if (hooks.empty()) return;
  llvm::LLVMContext& ctx = f.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  const uint64_t count = sites.size();
  llvm::MDNode* invariant = llvm::MDNode::get(ctx, {});
  auto invariantLoad = [&](llvm::IRBuilder<>& b, llvm::Type* type, uint64_t index, const char* name) {
    llvm::LoadInst* l = b.CreateLoad(type, b.CreateConstInBoundsGEP1_64(i64, filter, index), name);
    l->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    return l;
  };
  llvm::FunctionCallee running = f.getParent()->getOrInsertFunction(hook::kRunningThread, llvm::FunctionType::get(i32, false));
  for (llvm::CallInst* call : hooks) {
    uint64_t site = llvm::cast<llvm::ConstantInt>(call->getArgOperand(2))->getZExtValue();
    // first: the store inside the claim's range and word-aligned ? second : hook; second: the
    // swap succeeded ? join : hook.
    HookBypass blocks = bypassHook(call, "claim");
    llvm::IRBuilder<> b(blocks.first);
    // The site's claim: {bias, tag}, {begin, end}; published per dispatch, as the filters are.
    uint64_t entry = 2 * (2 * count + 3 + 2 * site);
    llvm::Value* lo = invariantLoad(b, i64, entry + 2, "claim.begin");
    llvm::Value* hi = invariantLoad(b, i64, entry + 3, "claim.end");
    llvm::Value* address = b.CreatePtrToInt(call->getArgOperand(0), i64);
    llvm::Value* inside = b.CreateAnd(b.CreateICmpUGE(address, lo), b.CreateICmpULE(b.CreateAdd(address, b.getInt64(4)), hi));
    llvm::Value* aligned = b.CreateICmpEQ(b.CreateAnd(address, 3), b.getInt64(0));
    b.CreateCondBr(b.CreateAnd(inside, aligned), blocks.second, blocks.hook);

    b.SetInsertPoint(blocks.second);
    llvm::Value* bias = invariantLoad(b, i64, entry, "claim.bias");
    llvm::Value* tag = invariantLoad(b, i64, entry + 1, "claim.tag");
    // The running thread's number in the dispatch: the threadgroup's first and its index in it.
    llvm::Value* thread = b.CreateZExt(b.CreateCall(running, {}, "claim.thread"), i64);
    llvm::Value* first = invariantLoad(b, i64, 2 * (2 * count + 2), "claim.first.thread");
    llvm::Value* shift = invariantLoad(b, i64, 2 * (2 * count + 2) + 1, "claim.shift");
    llvm::Value* word = b.CreateOr(tag, b.CreateShl(b.CreateAdd(first, thread), shift));
    llvm::Value* slot = b.CreateIntToPtr(b.CreateAdd(bias, b.CreateShl(b.CreateAnd(address, ~uint64_t(3)), 1)), ptr);
    auto* swap = b.CreateAtomicCmpXchg(slot, b.getInt64(0), word, llvm::MaybeAlign(8), llvm::AtomicOrdering::Monotonic,
                                       llvm::AtomicOrdering::Monotonic);
    b.CreateCondBr(b.CreateExtractValue(swap, 1), blocks.join, blocks.hook);
  }
}

void unmaskWholeAccesses(llvm::Module& module) {
  std::vector<llvm::IntrinsicInst*> masked;
  for (llvm::Function& f : module)
    for (llvm::Instruction& inst : llvm::instructions(f))
      if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        if (call->getIntrinsicID() == llvm::Intrinsic::masked_load || call->getIntrinsicID() == llvm::Intrinsic::masked_store) {
          unsigned maskAt = call->getIntrinsicID() == llvm::Intrinsic::masked_load ? 2 : 3;
          if (!llvm::isa<llvm::Constant>(call->getArgOperand(maskAt))) masked.push_back(call);
        }
  for (llvm::IntrinsicInst* call : masked) {
    bool load = call->getIntrinsicID() == llvm::Intrinsic::masked_load;
    llvm::Value* mask = call->getArgOperand(load ? 2 : 3);
    llvm::Value* pointer = call->getArgOperand(load ? 0 : 1);
    llvm::Align align = llvm::cast<llvm::ConstantInt>(call->getArgOperand(load ? 1 : 2))->getAlignValue();
    llvm::IRBuilder<> b(call);
    llvm::Value* every = b.CreateAndReduce(mask);
    llvm::Instruction *whole = nullptr, *partial = nullptr;
    llvm::SplitBlockAndInsertIfThenElse(every, call, &whole, &partial);
    b.SetInsertPoint(whole);
    llvm::Instruction* plain = load ? static_cast<llvm::Instruction*>(b.CreateAlignedLoad(call->getType(), pointer, align))
                                    : b.CreateAlignedStore(call->getArgOperand(0), pointer, align);
    plain->copyMetadata(*call);
    call->moveBefore(partial);
    if (load) {
      b.SetInsertPoint(&*call->getParent()->getSingleSuccessor()->begin());
      llvm::PHINode* phi = b.CreatePHI(call->getType(), 2);
      call->replaceAllUsesWith(phi);
      phi->addIncoming(plain, whole->getParent());
      phi->addIncoming(call, partial->getParent());
    }
  }
}

void lowerRangeChecks(llvm::Function& f) {
  for (llvm::CallInst* call : rangeChecksIn(f)) lowerRangeCheck(call);
}

void lowerRangeChecks(llvm::Module& module) {
  for (auto& f : module) lowerRangeChecks(f);
}

llvm::Function* buildThreadLoop(llvm::Function& entry, const KernelInfo& info, const std::string& name,
                                bool recordThread) {
  llvm::Module& module = *entry.getParent();
  llvm::LLVMContext& ctx = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i32, i32, i32, ptr}, false);
  llvm::Function* loop = createKernelLoop(entry, type, name);
  llvm::Argument* args = loop->getArg(0);
  llvm::Argument* threadSlot = loop->getArg(4);
  llvm::Value* size[3] = {loop->getArg(1), loop->getArg(2), loop->getArg(3)};

  // A per-thread copy of the argument array: buffers and uniform built-ins as the simulator bound
  // them, the built-ins that vary per thread in allocas of their own (promoted once inlined).
  unsigned count = unsigned(info.arguments.size());
  llvm::BasicBlock* setup = llvm::BasicBlock::Create(ctx, "setup", loop);
  llvm::IRBuilder<> b(setup);
  auto* argsType = llvm::ArrayType::get(ptr, std::max(count, 1u));
  llvm::Value* threadArgs = b.CreateAlloca(argsType, nullptr, "thread.args");
  std::vector<llvm::Value*> storage(count, nullptr);
  for (const ArgumentInfo& a : info.arguments) {
    llvm::Value* slot = b.CreateConstInBoundsGEP2_32(argsType, threadArgs, 0, a.position);
    llvm::LoadInst* bound = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, args, a.position));
    // What the simulator bound can always be read (a 16-byte slot holding a pointer or a built-in
    // value, or the referenced buffer), and does not change during the loop: telling LLVM lets it
    // hoist those reads out of `if (gid < n)` and vectorise the rest.
    uint64_t readable = a.role == ArgumentRole::Buffer && a.isReference ? a.pointeeSize : 16;
    if (readable) {
      bound->setMetadata(llvm::LLVMContext::MD_dereferenceable,
                         llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(b.getInt64(readable))}));
      bound->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(ctx, {}));
      // Slots are 16-byte aligned; a referenced buffer is aligned to its element, as MSL requires.
      uint64_t alignment = readable == 16 && !a.isReference ? 16 : (readable % 4 == 0 ? 4 : 1);
      bound->setMetadata(llvm::LLVMContext::MD_align,
                         llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(b.getInt64(alignment))}));
    }
    if (a.role == ArgumentRole::Builtin && variesPerThread(a.builtin)) {
      // Aligned like a simulator slot: a uint3 built-in is passed byval with 16-byte alignment.
      auto* alloca = b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), 16), nullptr, "builtin");
      alloca->setAlignment(llvm::Align(16));
      storage[a.position] = alloca;
      // Thread 0's value, written by the simulator: the grid position is relative to it.
      b.CreateStore(storage[a.position], slot);
    } else {
      b.CreateStore(bound, slot);
    }
  }
  // Thread 0's values of the varying built-ins, as the base of the grid position.
  std::vector<std::array<llvm::Value*, 3>> base(count);
  for (const ArgumentInfo& a : info.arguments)
    if (storage[a.position] && a.builtin == BuiltinValue::ThreadPositionInGrid) {
      llvm::Value* bound = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_32(ptr, args, a.position));
      llvm::Type* component = b.getIntNTy(8 * a.componentSize);
      for (unsigned c = 0; c < a.components; ++c)
        base[a.position][c] = b.CreateZExt(b.CreateLoad(component, b.CreateConstInBoundsGEP1_32(component, bound, c)), i32);
    }

  // for z, for y, for x: the innermost loop walks consecutive threads, so accesses indexed by the
  // thread position are consecutive and the loop vectoriser can use vector loads and stores.
  llvm::BasicBlock* current = setup;
  llvm::Value* zero = b.getInt32(0);
  std::array<llvm::Value*, 3> local{};
  std::array<llvm::PHINode*, 3> phis{};
  std::array<llvm::BasicBlock*, 3> headers{}, latches{};
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, "exit", loop);
  for (int d = 2; d >= 0; --d) {
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx, std::string("loop.") + "xyz"[d], loop);
    llvm::IRBuilder<>(current).CreateBr(header);
    llvm::IRBuilder<> hb(header);
    phis[d] = hb.CreatePHI(i32, 2, std::string("xyz").substr(d, 1));
    phis[d]->addIncoming(zero, current);
    local[d] = phis[d];
    headers[d] = header;
    current = header;
  }
  llvm::IRBuilder<> body(current);
  llvm::Value* linear = body.CreateAdd(
      local[0], body.CreateMul(size[0], body.CreateAdd(local[1], body.CreateMul(size[1], local[2], "", true), "", true), "", true),
      "linear", true);
  for (const ArgumentInfo& a : info.arguments) {
    if (!storage[a.position]) continue;
    std::array<llvm::Value*, 3> v{zero, zero, zero};
    switch (a.builtin) {
      case BuiltinValue::ThreadPositionInGrid:
        // No wrap: a grid position fits its type. With `nuw`, SCEV sees `in[gid]` as an affine
        // function of x, which the vectoriser's alias checks need.
        for (unsigned c = 0; c < a.components; ++c) v[c] = body.CreateAdd(base[a.position][c], local[c], "", /*HasNUW=*/true);
        break;
      case BuiltinValue::ThreadPositionInThreadgroup: v = local; break;
      case BuiltinValue::ThreadIndexInThreadgroup: v[0] = linear; break;
      case BuiltinValue::ThreadIndexInSimdgroup: v[0] = body.CreateAnd(linear, kSimdWidth - 1); break;
      case BuiltinValue::SimdgroupIndexInThreadgroup: v[0] = body.CreateLShr(linear, __builtin_ctz(kSimdWidth)); break;
      case BuiltinValue::ThreadIndexInQuadgroup: v[0] = body.CreateAnd(linear, 3); break;
      case BuiltinValue::QuadgroupIndexInThreadgroup: v[0] = body.CreateLShr(linear, 2); break;
      default: break;
    }
    llvm::Type* component = body.getIntNTy(8 * a.componentSize);
    for (unsigned c = 0; c < a.components; ++c)
      body.CreateStore(body.CreateTrunc(v[c], component), body.CreateConstInBoundsGEP1_32(component, storage[a.position], c));
  }
  // Which thread runs, for the hooks of a kernel that synchronises. Not otherwise: a store of a
  // varying value to one address keeps the loop vectoriser away.
  if (entry.getReturnType()->isPointerTy()) body.CreateStore(linear, threadSlot);
  llvm::CallInst* call = body.CreateCall(entry.getFunctionType(), &entry, {threadArgs});
  call->addFnAttr(llvm::Attribute::AlwaysInline);
  // Latches, innermost first.
  for (int d = 0; d < 3; ++d) {
    llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx, std::string("next.") + "xyz"[d], loop);
    llvm::IRBuilder<>(current).CreateBr(latch);
    llvm::IRBuilder<> lb(latch);
    llvm::Value* next = lb.CreateAdd(phis[d], lb.getInt32(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    phis[d]->addIncoming(next, latch);
    llvm::BasicBlock* after = d < 2 ? llvm::BasicBlock::Create(ctx, std::string("done.") + "xyz"[d], loop) : exit;
    lb.CreateCondBr(lb.CreateICmpULT(next, size[d]), headers[d], after);
    latches[d] = latch;
    current = after;
  }
  llvm::IRBuilder<>(exit).CreateRetVoid();
  entry.removeFnAttr(llvm::Attribute::NoInline);
  if (recordThread) {
    // A checked kernel's hooks are its checks' slow paths: the thread's index is stored before each
    // hook call only, so that the paths where every check passes stay free of the store and the
    // loop can be vectorised. A kernel with loops of its own stores it first thing: the
    // cancellation polls added to its loops later need it too, and the loop over the threads is not
    // innermost, so the vectoriser would not take it anyway.
    llvm::DominatorTree entryDominators(entry);
    bool bodyLoops = !llvm::LoopInfo(entryDominators).empty();
    // What a bound slot holds (a buffer's address, threadgroup memory's, a uniform built-in) is the
    // same for every thread of the threadgroup; said so, its reads leave the loop even though the
    // hook calls in it could write memory, and the addresses the accesses compute become affine
    // in the thread (what RangeCheckVersioningPass needs).
    for (const ArgumentInfo& a : info.arguments) {
      bool fixed = (a.role == ArgumentRole::Buffer && !a.isReference) || a.role == ArgumentRole::ThreadgroupMemory ||
                   (a.role == ArgumentRole::Builtin && !variesPerThread(a.builtin));
      if (!fixed) continue;
      for (auto& bb : entry)
        for (auto& inst : bb) {
          auto* slotRead = llvm::dyn_cast<llvm::LoadInst>(&inst);
          if (!slotRead) continue;
          auto* slotPointer = llvm::dyn_cast<llvm::LoadInst>(slotRead->getPointerOperand());
          if (!slotPointer) continue;
          llvm::Value* element = slotPointer->getPointerOperand();
          llvm::APInt offset(64, 0);
          llvm::Value* base = element->stripAndAccumulateConstantOffsets(module.getDataLayout(), offset, false);
          if (base == entry.getArg(0) && offset == uint64_t(a.position) * sizeof(void*))
            slotRead->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
        }
    }
    llvm::InlineFunctionInfo inlining;
    if (bodyLoops) {
      new llvm::StoreInst(linear, threadSlot, call);
    } else if (llvm::InlineFunction(*call, inlining).isSuccess()) {
      // The running thread is the loop's own index (the stores of it below come only before hooks).
      std::vector<llvm::CallInst*> running;
      for (auto& bb : *loop)
        for (auto& inst : bb)
          if (auto* c = llvm::dyn_cast<llvm::CallInst>(&inst))
            if (llvm::Function* callee = c->getCalledFunction(); callee && callee->getName() == hook::kRunningThread)
              running.push_back(c);
      for (llvm::CallInst* c : running) {
        c->replaceAllUsesWith(linear);
        c->eraseFromParent();
      }
      std::vector<llvm::CallInst*> hooks;
      for (auto& bb : *loop)
        for (auto& inst : bb)
          if (auto* c = llvm::dyn_cast<llvm::CallInst>(&inst))
            if (llvm::Function* callee = c->getCalledFunction())
              if (callee->getName().startswith("__mslsim_") && !callee->doesNotAccessMemory() &&
                  callee->getName() != hook::kThreadgroupArena)
                hooks.push_back(c);
      for (llvm::CallInst* c : hooks) new llvm::StoreInst(linear, threadSlot, c);
    } else {
      new llvm::StoreInst(linear, threadSlot, call);
    }
  }
  return loop;
}

}  // namespace mslsim

namespace mslsim {

const std::vector<std::string>& vectorisableMathFunctions() {
  // Functions of libm with a libmvec variant (glibc 2.35+: _ZGV{b,d,e}N{4,8,16}v[v]_NAME).
  static const std::vector<std::string> names = {
      "acosf", "acoshf", "asinf", "asinhf", "atanf", "atanhf", "cbrtf", "cosf", "coshf", "expf",
      "exp2f", "exp10f", "logf", "log2f", "log10f", "sinf", "sinhf", "tanf", "tanhf", "atan2f", "powf"};
  return names;
}

std::string VectorMathVariant::name(const std::string& scalar) const {
  bool binary = scalar == "atan2f" || scalar == "powf";
  return "_ZGV" + std::string(1, isa) + "N" + std::to_string(lanes) + (binary ? "vv_" : "v_") + scalar;
}

void useOneVectorMathVariant(llvm::Module& module, const VectorMathVariant& variant) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  auto* wide = llvm::FixedVectorType::get(f32, variant.lanes);
  const auto& names = vectorisableMathFunctions();
  // The scalar libm name a call computes, or "".
  auto scalarName = [&](llvm::CallInst& call) -> std::string {
    llvm::Function* f = call.getCalledFunction();
    if (!f || f->getReturnType()->getScalarType() != f32) return "";
    switch (f->getIntrinsicID()) {
      case llvm::Intrinsic::exp: return "expf";
      case llvm::Intrinsic::exp2: return "exp2f";
      case llvm::Intrinsic::log: return "logf";
      case llvm::Intrinsic::log2: return "log2f";
      case llvm::Intrinsic::log10: return "log10f";
      case llvm::Intrinsic::sin: return "sinf";
      case llvm::Intrinsic::cos: return "cosf";
      case llvm::Intrinsic::pow: return "powf";
      case llvm::Intrinsic::not_intrinsic: break;
      default: return "";
    }
    std::string name = f->getName().str();
    if (std::find(names.begin(), names.end(), name) != names.end() && !f->getReturnType()->isVectorTy()) return name;
    return "";
  };
  std::vector<std::pair<llvm::CallInst*, std::string>> calls;
  for (auto& f : module)
    for (auto& bb : f)
      for (auto& inst : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (std::string name = scalarName(*call); !name.empty()) calls.push_back({call, name});
  for (auto& [call, name] : calls) {
    llvm::FunctionType* type = llvm::FunctionType::get(wide, std::vector<llvm::Type*>(call->arg_size(), wide), false);
    llvm::FunctionCallee vector = module.getOrInsertFunction(variant.name(name), type);
    if (auto* fn = llvm::dyn_cast<llvm::Function>(vector.getCallee())) {
      fn->setDoesNotThrow();
      fn->setDoesNotAccessMemory();
      fn->setWillReturn();
    }
    llvm::IRBuilder<> b(call);
    auto* resultType = call->getType();
    unsigned count = resultType->isVectorTy() ? unsigned(llvm::cast<llvm::FixedVectorType>(resultType)->getNumElements()) : 1;
    llvm::Value* result = llvm::PoisonValue::get(resultType);
    // In chunks of the variant's lanes; a scalar fills every lane (the other lanes' work is free).
    for (unsigned first = 0; first < count; first += variant.lanes) {
      std::vector<llvm::Value*> args;
      for (llvm::Value* arg : call->args()) {
        if (!resultType->isVectorTy()) {
          args.push_back(b.CreateVectorSplat(variant.lanes, arg));
          continue;
        }
        llvm::Value* lanes = llvm::PoisonValue::get(wide);
        for (unsigned i = 0; i < variant.lanes && first + i < count; ++i)
          lanes = b.CreateInsertElement(lanes, b.CreateExtractElement(arg, uint64_t(first + i)), uint64_t(i));
        args.push_back(lanes);
      }
      llvm::Value* out = b.CreateCall(vector, args);
      if (!resultType->isVectorTy()) {
        result = b.CreateExtractElement(out, uint64_t(0));
        break;
      }
      for (unsigned i = 0; i < variant.lanes && first + i < count; ++i)
        result = b.CreateInsertElement(result, b.CreateExtractElement(out, uint64_t(i)), uint64_t(first + i));
    }
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

void enableVectorMath(llvm::Module& module) {
  // The front end compiles freestanding (no assumptions about a C library), which marks every
  // function "no-builtins" and every libm call `nobuiltin`; the vectoriser then cannot map a call
  // to its vector variant. The calls to the functions libmvec implements are released, and those
  // functions declared speculatable (they have no side effects and no undefined inputs), so a call
  // under `if (gid < n)` can run on every lane of a vector.
  for (auto& f : module) {
    f.removeFnAttr("no-builtins");
    if (!f.isDeclaration()) continue;
    const auto& names = vectorisableMathFunctions();
    if (std::find(names.begin(), names.end(), f.getName().str()) == names.end()) continue;
    f.addFnAttr(llvm::Attribute::Speculatable);
    for (llvm::User* u : f.users())
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(u))
        if (call->getCalledFunction() == &f) call->removeFnAttr(llvm::Attribute::NoBuiltin);
  }
}

}  // namespace mslsim

namespace mslsim {

namespace {

// After CoroSplit each suspension point of a barrier-only kernel stores its index in the frame
// right after the barrier's hook call, in the same block (the ramp for the first one, the resume
// function for the others). Empty if one store cannot be traced to its hook call.
// A coroutine that suspends at its start (a SIMD-group function's) has one more point, whose index
// the ramp stores with no hook call before it: that index goes to layout.startIndex, its entry a
// barrier of line 0.
std::vector<RegionBarrier> barriersBySuspension(llvm::Function& ramp, llvm::Function& resume,
                                                RegionLoopLayout& layout, bool startsSuspended) {
  std::map<uint64_t, RegionBarrier> found;
  bool traced = true;
  for (llvm::Function* f : {&ramp, &resume})
    for (auto& bb : *f)
      for (auto& inst : bb) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
        if (!store || !store->getPointerOperand()->getName().startswith("index.addr")) continue;
        auto* index = llvm::dyn_cast<llvm::ConstantInt>(store->getValueOperand());
        if (!index) {
          traced = false;
          continue;
        }
        if (startsSuspended && f == &ramp) {
          layout.startIndex = uint32_t(index->getZExtValue() & layout.indexMask);
          traced &= found.emplace(*layout.startIndex, RegionBarrier{}).second;
          continue;
        }
        llvm::CallInst* hook = nullptr;
        for (llvm::Instruction* i = store->getPrevNode(); i && !hook; i = i->getPrevNode())
          if (auto* call = llvm::dyn_cast<llvm::CallInst>(i))
            if (llvm::Function* callee = call->getCalledFunction())
              if (callee->getName() == hook::kThreadgroupBarrier) hook = call;
        llvm::StringRef file;
        auto* flags = hook ? llvm::dyn_cast<llvm::ConstantInt>(hook->getArgOperand(0)) : nullptr;
        auto* line = hook ? llvm::dyn_cast<llvm::ConstantInt>(hook->getArgOperand(2)) : nullptr;
        auto* column = hook ? llvm::dyn_cast<llvm::ConstantInt>(hook->getArgOperand(3)) : nullptr;
        if (!flags || !line || !column || !llvm::getConstantStringInfo(hook->getArgOperand(1), file)) {
          traced = false;
          continue;
        }
        RegionBarrier barrier{file.str(), unsigned(line->getZExtValue()), unsigned(column->getZExtValue()),
                              unsigned(flags->getZExtValue())};
        auto [at, added] = found.emplace(index->getZExtValue() & layout.indexMask, barrier);
        if (!added && (at->second.file != barrier.file || at->second.line != barrier.line ||
                       at->second.column != barrier.column || at->second.flags != barrier.flags))
          traced = false;  // one index, two barriers
      }
  // A single suspension point has no index: the one hook call before the ramp's return.
  if (layout.indexMask == 0 && found.empty()) {
    std::vector<llvm::CallInst*> hooks;
    for (auto& bb : ramp)
      for (auto& inst : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (call->getCalledFunction() && call->getCalledFunction()->getName() == hook::kThreadgroupBarrier)
            hooks.push_back(call);
    llvm::StringRef file;
    if (hooks.size() != 1 || !llvm::getConstantStringInfo(hooks[0]->getArgOperand(1), file)) return {};
    auto* flags = llvm::dyn_cast<llvm::ConstantInt>(hooks[0]->getArgOperand(0));
    auto* line = llvm::dyn_cast<llvm::ConstantInt>(hooks[0]->getArgOperand(2));
    auto* column = llvm::dyn_cast<llvm::ConstantInt>(hooks[0]->getArgOperand(3));
    if (!flags || !line || !column) return {};
    return {{file.str(), unsigned(line->getZExtValue()), unsigned(column->getZExtValue()), unsigned(flags->getZExtValue())}};
  }
  if (!traced || found.empty() || found.rbegin()->first >= found.size()) return {};  // indices 0..n-1, each traced
  std::vector<RegionBarrier> barriers;
  for (auto& [index, barrier] : found) barriers.push_back(barrier);
  return barriers;
}

}  // namespace

std::optional<RegionLoopLayout> buildRegionLoop(llvm::Function& ramp, const std::string& name, bool startsSuspended) {
  llvm::Module& module = *ramp.getParent();
  llvm::Function* resume = module.getFunction((ramp.getName() + ".resume").str());
  if (!resume || resume->isDeclaration() || resume->arg_size() != 1) return std::nullopt;
  // SIMD-group functions need each lane's value, recorded by the hooks per thread; without them,
  // the barrier hooks have nothing to record and go.
  bool simd = false;
  for (llvm::Function* f : {&ramp, resume})
    for (auto& bb : *f)
      for (auto& inst : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (llvm::Function* callee = call->getCalledFunction())
            simd |= callee->getName() == hook::kSimdExchange || callee->getName() == hook::kSimdgroupBarrier;

  // Where the split put the suspension index: the resume function dispatches on it first thing
  // (a switch, or a compare and branch for two points). With a single suspension point there is
  // no dispatch and no index: every unfinished thread waits at that one barrier.
  const llvm::DataLayout& layout = module.getDataLayout();
  RegionLoopLayout result;
  result.indexMask = 0;
  result.recordsThreads = simd;
  llvm::BasicBlock& first = resume->getEntryBlock();
  auto dispatchesOn = [&](llvm::Value* v) {
    for (llvm::User* u : v->users()) {
      if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(u)) return sw->getParent() == &first;
      if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(u))
        for (llvm::User* c : cmp->users())
          if (auto* br = llvm::dyn_cast<llvm::BranchInst>(c)) return br->getParent() == &first;
    }
    return false;
  };
  for (auto& inst : first) {
    auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
    if (!load || !load->getType()->isIntegerTy() || !dispatchesOn(load)) continue;
    auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(load->getPointerOperand());
    if (!gep || gep->getPointerOperand() != resume->getArg(0)) continue;
    // CoroSplit names the index's address "index.addr". A kernel with one suspension point has no
    // index, and its resume code may start by testing a spilled value instead (`if (lid == 0)`
    // after the only barrier), which must not be taken for one: every thread would then seem to
    // wait at a barrier of its own.
    if (!gep->getName().startswith("index.addr")) continue;
    llvm::APInt offset(64, 0);
    if (!gep->accumulateConstantOffset(layout, offset)) continue;
    result.indexOffset = offset.getZExtValue();
    unsigned bits = load->getType()->getIntegerBitWidth();
    if (bits > 32) return std::nullopt;
    result.indexMask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    result.indexBytes = unsigned(layout.getTypeStoreSize(load->getType()));
    break;
  }

  if (!simd) result.barriers = barriersBySuspension(ramp, *resume, result, startsSuspended);
  // A coroutine suspended at its start is resumed from there first: the loop needs each point known.
  if (startsSuspended && (simd || result.barriers.empty() || !result.startIndex)) return std::nullopt;

  // u32 regions(ptr frames, i64 stride, i32 count, ptr runnable, ptr threadSlot): resumes every
  // unfinished thread whose runnable byte is set, after storing its index in *threadSlot. Returns
  // bit 0: a resumed thread has not finished; bit 1: resumed threads stopped at different
  // suspension points (read from the frames, where the resume code has just written them); bit 2:
  // a resumed thread finished; bits 8 and up: the suspension point of the first that stopped.
  llvm::LLVMContext& ctx = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* type = llvm::FunctionType::get(i32, {ptr, i64, i32, ptr, ptr}, false);
  llvm::Function* loop = createKernelLoop(ramp, type, name);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", loop);
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx, "thread", loop);
  llvm::BasicBlock* run = llvm::BasicBlock::Create(ctx, "resume", loop);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx, "next", loop);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, "exit", loop);
  llvm::IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateICmpEQ(loop->getArg(2), b.getInt32(0)), exit, header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(i32, 2, "i");
  llvm::PHINode* any = b.CreatePHI(b.getInt1Ty(), 2, "any");
  llvm::PHINode* firstIndex = b.CreatePHI(i32, 2, "first");
  llvm::PHINode* differ = b.CreatePHI(b.getInt1Ty(), 2, "differ");
  llvm::PHINode* finished = b.CreatePHI(b.getInt1Ty(), 2, "finished");
  i->addIncoming(b.getInt32(0), entry);
  any->addIncoming(b.getFalse(), entry);
  firstIndex->addIncoming(b.getInt32(0), entry);
  differ->addIncoming(b.getFalse(), entry);
  finished->addIncoming(b.getFalse(), entry);
  llvm::Value* frame = b.CreateGEP(b.getInt8Ty(), loop->getArg(0), b.CreateMul(b.CreateZExt(i, i64), loop->getArg(1), "", true, true));
  llvm::Value* resumeFn = b.CreateLoad(ptr, frame, "resume.fn");
  llvm::Value* runnable = b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), loop->getArg(3), i), "runnable");
  // null: the thread has finished
  b.CreateCondBr(b.CreateOr(b.CreateIsNull(resumeFn), b.CreateICmpEQ(runnable, b.getInt8(0))), next, run);
  b.SetInsertPoint(run);
  b.CreateStore(i, loop->getArg(4));
  llvm::CallInst* call = b.CreateCall(resume->getFunctionType(), resume, {frame});
  call->setCallingConv(resume->getCallingConv());
  llvm::Value* unfinished = b.CreateIsNotNull(b.CreateLoad(ptr, frame), "unfinished");
  llvm::Value* index = b.getInt32(0);
  if (result.indexMask) {
    llvm::Type* field = b.getIntNTy(8 * result.indexBytes);
    index = b.CreateAnd(b.CreateZExt(b.CreateLoad(field, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), frame, result.indexOffset)), i32),
                        b.getInt32(result.indexMask), "index");
  }
  llvm::Value* runFirst = b.CreateSelect(b.CreateAnd(unfinished, b.CreateNot(any)), index, firstIndex);
  llvm::Value* runDiffer = b.CreateOr(differ, b.CreateAnd(b.CreateAnd(unfinished, any), b.CreateICmpNE(index, firstIndex)));
  llvm::Value* runAny = b.CreateOr(any, unfinished);
  llvm::Value* runFinished = b.CreateOr(finished, b.CreateNot(unfinished));
  b.CreateBr(next);
  b.SetInsertPoint(next);
  llvm::PHINode* anyNext = b.CreatePHI(b.getInt1Ty(), 2);
  llvm::PHINode* firstNext = b.CreatePHI(i32, 2);
  llvm::PHINode* differNext = b.CreatePHI(b.getInt1Ty(), 2);
  llvm::PHINode* finishedNext = b.CreatePHI(b.getInt1Ty(), 2);
  // `run` ends up split around the inlined resume code; the split moves these phis' edges along.
  anyNext->addIncoming(any, header);
  anyNext->addIncoming(runAny, run);
  firstNext->addIncoming(firstIndex, header);
  firstNext->addIncoming(runFirst, run);
  differNext->addIncoming(differ, header);
  differNext->addIncoming(runDiffer, run);
  finishedNext->addIncoming(finished, header);
  finishedNext->addIncoming(runFinished, run);
  llvm::Value* after = b.CreateAdd(i, b.getInt32(1), "", true, true);
  i->addIncoming(after, next);
  any->addIncoming(anyNext, next);
  firstIndex->addIncoming(firstNext, next);
  differ->addIncoming(differNext, next);
  finished->addIncoming(finishedNext, next);
  b.CreateCondBr(b.CreateICmpULT(after, loop->getArg(2)), header, exit);
  b.SetInsertPoint(exit);
  llvm::PHINode* anyOut = b.CreatePHI(b.getInt1Ty(), 2);
  llvm::PHINode* differOut = b.CreatePHI(b.getInt1Ty(), 2);
  llvm::PHINode* finishedOut = b.CreatePHI(b.getInt1Ty(), 2);
  llvm::PHINode* firstOut = b.CreatePHI(i32, 2);
  anyOut->addIncoming(b.getFalse(), entry);
  anyOut->addIncoming(anyNext, next);
  differOut->addIncoming(b.getFalse(), entry);
  differOut->addIncoming(differNext, next);
  finishedOut->addIncoming(b.getFalse(), entry);
  finishedOut->addIncoming(finishedNext, next);
  firstOut->addIncoming(b.getInt32(0), entry);
  firstOut->addIncoming(firstNext, next);
  llvm::Value* status = b.CreateOr(b.CreateZExt(anyOut, i32), b.CreateShl(b.CreateZExt(differOut, i32), 1));
  status = b.CreateOr(status, b.CreateShl(b.CreateZExt(finishedOut, i32), 2));
  b.CreateRet(b.CreateOr(status, b.CreateShl(firstOut, 8)));
  // The resume function inlined, without its barrier hooks when there is nothing for them to
  // record: a call with unknown effects in the loop would keep LLVM from optimising it.
  if (!inlineCalls(*loop, *resume, /*dropBarrierHooks=*/!simd)) {
    loop->eraseFromParent();
    return std::nullopt;
  }
  return result;
}

namespace {
// In a loop over coroutine starts, each start's frame hook call replaced by frame `index` of the
// frames' base (hook::kCoroutineFrames).
void handOutFrames(llvm::Function& starts, llvm::Value* index) {
  llvm::Module& module = *starts.getParent();
  llvm::LLVMContext& ctx = module.getContext();
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Value* linear = index;
  std::vector<llvm::CallInst*> calls;
  for (auto& bb : starts)
    for (auto& inst : bb)
      if (auto* c = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (c->getCalledFunction() && c->getCalledFunction()->getName() == hook::kCoroutineFrame &&
            llvm::isa<llvm::ConstantInt>(c->getArgOperand(0)) && llvm::isa<llvm::ConstantInt>(c->getArgOperand(1)))
          calls.push_back(c);
  llvm::FunctionCallee framesHook =
      module.getOrInsertFunction(hook::kCoroutineFrames, llvm::FunctionType::get(ptr, {i64, i64}, false));
  for (llvm::CallInst* c : calls) {
    auto* size = llvm::cast<llvm::ConstantInt>(c->getArgOperand(0));
    auto* align = llvm::cast<llvm::ConstantInt>(c->getArgOperand(1));
    // The frames' base, once per call of the loop (the simulator sizes them on the first call).
    llvm::IRBuilder<> setup(&*starts.getEntryBlock().getFirstInsertionPt());
    llvm::Value* base = setup.CreateCall(framesHook, {size, align}, "frames");
    llvm::IRBuilder<> b(c);
    llvm::Value* offset = b.CreateMul(b.CreateZExt(linear, i64),
                                      b.getInt64(coroutineFrameStride(size->getZExtValue(), align->getZExtValue())));
    llvm::Value* frame = b.CreateInBoundsGEP(b.getInt8Ty(), base, offset, "frame");
    // No resume function yet, as coroutineFrame() writes.
    b.CreateStore(llvm::ConstantPointerNull::get(ptr), frame);
    b.CreateStore(llvm::ConstantPointerNull::get(ptr), b.CreateConstInBoundsGEP1_64(ptr, frame, 1));
    c->replaceAllUsesWith(frame);
    c->eraseFromParent();
  }
}
}  // namespace

void handOutFramesByIndex(llvm::Function& starts) {
  // The thread's index: what the loop stores in its thread slot (argument 4) before each start.
  llvm::Value* linear = nullptr;
  for (llvm::User* u : starts.getArg(4)->users())
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u))
      if (store->getPointerOperand() == starts.getArg(4)) linear = store->getValueOperand();
  if (linear) handOutFrames(starts, linear);
}

llvm::Function* buildSimdGroupStarts(llvm::Function& ramp, const std::string& name) {
  llvm::Module& module = *ramp.getParent();
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  if (ramp.arg_size() != 5) return nullptr;
  // void starts(ptr args, i32 sx, i32 sy, i32 count, i32 groups)
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, i32, i32, i32, i32}, false);
  llvm::Function* starts = createKernelLoop(ramp, type, name);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", starts);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx, "start", starts);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx, "exit", starts);
  llvm::IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateICmpEQ(starts->getArg(4), b.getInt32(0)), exit, body);
  b.SetInsertPoint(body);
  llvm::PHINode* g = b.CreatePHI(i32, 2, "simdgroup");
  g->addIncoming(b.getInt32(0), entry);
  b.CreateCall(ramp.getFunctionType(), &ramp, {starts->getArg(0), g, starts->getArg(1), starts->getArg(2), starts->getArg(3)});
  llvm::Value* after = b.CreateAdd(g, b.getInt32(1), "", true, true);
  g->addIncoming(after, body);
  b.CreateCondBr(b.CreateICmpULT(after, starts->getArg(4)), body, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  if (!inlineCalls(*starts, ramp, /*dropBarrierHooks=*/false)) {
    starts->eraseFromParent();
    return nullptr;
  }
  handOutFrames(*starts, g);
  return starts;
}

bool inlineCalls(llvm::Function& caller, llvm::Function& callee, bool dropBarrierHooks) {
  std::vector<llvm::CallBase*> calls;
  for (auto& bb : caller)
    for (auto& inst : bb)
      if (auto* c = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (c->getCalledFunction() == &callee) calls.push_back(c);
  for (llvm::CallBase* c : calls) {
    llvm::InlineFunctionInfo inlining;
    if (!llvm::InlineFunction(*c, inlining).isSuccess()) return false;
  }
  if (!dropBarrierHooks) return true;
  std::vector<llvm::CallInst*> hooks;
  for (auto& bb : caller)
    for (auto& inst : bb)
      if (auto* c = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (c->getCalledFunction() && c->getCalledFunction()->getName() == hook::kThreadgroupBarrier) hooks.push_back(c);
  for (llvm::CallInst* c : hooks) c->eraseFromParent();
  return true;
}

}  // namespace mslsim
