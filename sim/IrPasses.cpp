#include "IrPasses.h"

#include <llvm/ADT/SetVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

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

std::map<std::string, uint64_t> lowerThreadgroupMemory(llvm::Module& module,
                                                       const std::string& entryPrefix) {
  std::map<std::string, uint64_t> bytesPerEntry;
  std::vector<llvm::GlobalVariable*> variables = takeAnnotatedGlobals(module, "msl_threadgroup_memory");
  std::vector<llvm::Function*> entries;
  for (auto& f : module)
    if (f.getName().startswith(entryPrefix)) entries.push_back(&f);
  if (variables.empty()) {
    for (auto* e : entries) bytesPerEntry[e->getName().str()] = 0;
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
    uint64_t end = 0;
    for (auto* gv : perEntry[e])
      end = std::max(end, offsets[gv] + layout.getTypeAllocSize(gv->getValueType()));
    bytesPerEntry[e->getName().str()] = end;
  }

  // Rewrite uses: one call for the arena base at the entry of each function that needs it.
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptrTy = llvm::PointerType::getUnqual(ctx);
  llvm::FunctionCallee arenaFn = module.getOrInsertFunction(
      hook::kThreadgroupArena, llvm::FunctionType::get(ptrTy, false));
  if (auto* decl = llvm::dyn_cast<llvm::Function>(arenaFn.getCallee())) {
    // The arena of a running thread never changes, so repeated calls may be merged.
    decl->setOnlyReadsMemory();
    decl->setDoesNotThrow();
    decl->setWillReturn();
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

void insertCancellationPolls(llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::GlobalVariable* flag = module.getNamedGlobal(hook::kCancelFlag);
  if (!flag)
    flag = new llvm::GlobalVariable(module, i32, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                    hook::kCancelFlag);
  llvm::FunctionCallee poll =
      module.getOrInsertFunction(hook::kPoll, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false));
  for (auto& f : module) {
    if (f.isDeclaration()) continue;
    llvm::DominatorTree dt(f);
    llvm::LoopInfo loops(dt);
    std::vector<llvm::BasicBlock*> headers;
    for (llvm::Loop* l : loops.getLoopsInPreorder()) headers.push_back(l->getHeader());
    for (llvm::BasicBlock* header : headers) {
      llvm::BasicBlock* rest = header->splitBasicBlock(header->getFirstInsertionPt(), header->getName() + ".body");
      header->getTerminator()->eraseFromParent();
      llvm::BasicBlock* pollBlock = llvm::BasicBlock::Create(ctx, "cancel.poll", &f, rest);
      llvm::IRBuilder<> b(header);
      llvm::LoadInst* value = b.CreateLoad(i32, flag, /*isVolatile=*/true, "cancel");
      llvm::Value* set = b.CreateICmpNE(value, b.getInt32(0));
      llvm::MDBuilder md(ctx);
      b.CreateCondBr(set, pollBlock, rest, md.createBranchWeights(1, 1 << 20));
      llvm::IRBuilder<> pb(pollBlock);
      pb.CreateCall(poll);
      pb.CreateBr(rest);
    }
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
