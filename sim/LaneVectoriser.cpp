// Whole-function vectorisation over a SIMD-group's lanes (see LaneVectoriser.h for what and why).
//
// The steps, on a scalar copy of the kernel:
//  1. the built-ins that vary per thread become expressions of one lane index (a call the
//     vectoriser knows, with range [0, 32)), so that InstCombine folds what only depends on the
//     SIMD-group (`lane & ~31` in the standard library's reductions is 0);
//  2. uniformity: which values may differ between the lanes (seeded by the lane index, per-lane
//     memory and atomics; a phi where lanes that went different ways meet, and a value leaving a
//     loop lanes leave at different iterations, differ too);
//  3. every value used outside its block and every phi is demoted to a slot (an alloca), so that
//     each block only uses its own values: the linearised blocks can then run in any order that
//     respects the CFG's, and a phi's incoming values are stores its predecessors make;
//  4. emission into a new function: blocks in reverse post-order of their loop level, each
//     guarded by its mask (the lanes that reached it) and adding each lane to the mask of the
//     successor it branches to; a loop repeats while some lane goes round again. mem2reg (SROA,
//     in the -O2 that follows) turns the slots and masks back into SSA values.
#include "LaneVectoriser.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ProfDataUtils.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "Executor.h"
#include "HostBoundary.h"
#include "Hooks.h"

namespace mslsim {
namespace {

constexpr unsigned kLanes = kSimdWidth;
constexpr const char* kLaneIndex = "__mslsim_vector_lane";  // i32(): the lane, in the scalar copy only

// What a node of one loop level is: a block of that level, or a loop nested in it.
struct Node {
  llvm::BasicBlock* block = nullptr;
  llvm::Loop* loop = nullptr;
  const void* key() const { return block ? static_cast<const void*>(block) : static_cast<const void*>(loop); }
};

class LaneVectoriser {
 public:
  LaneVectoriser(llvm::Function& entry, const KernelInfo& info, const VectorMathVariant& math, std::string& whyNot)
      : entry_(entry), info_(info), math_(math), whyNot_(whyNot), module_(*entry.getParent()),
        ctx_(module_.getContext()), layout_(module_.getDataLayout()) {}

  llvm::Function* run(const std::string& name) {
    bool ok;
    try {
      ok = cloneScalar(name) && simplify() && computeBuiltins() && checksPerLane() && simplify() && checkStructure() &&
           analyse() && demote() && emit(name);
    } catch (const std::exception& e) {  // an internal error: the kernel keeps the per-thread paths
      ok = fail(std::string("internal error: ") + e.what());
    }
    if (f_) f_->eraseFromParent();
    if (llvm::Function* lane = module_.getFunction(kLaneIndex))
      if (lane->use_empty()) lane->eraseFromParent();
    if (!ok && g_) {
      g_->eraseFromParent();
      g_ = nullptr;
    }
    return ok ? g_ : nullptr;
  }

 private:
  llvm::Function& entry_;
  const KernelInfo& info_;
  const VectorMathVariant& math_;
  std::string& whyNot_;
  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  const llvm::DataLayout& layout_;
  llvm::Function* f_ = nullptr;  // the scalar copy
  llvm::Function* g_ = nullptr;  // the SIMD-group function

  bool fail(const std::string& why) {
    if (whyNot_.empty()) whyNot_ = why;
    return false;
  }
  template <class T>  // an llvm::Value or llvm::Type
  static std::string describe(const T& v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    v.print(os);
    return s.size() > 160 ? s.substr(0, 160) + "..." : s;
  }

  llvm::Type* i32() { return llvm::Type::getInt32Ty(ctx_); }
  llvm::Type* i64() { return llvm::Type::getInt64Ty(ctx_); }
  llvm::PointerType* ptr() { return llvm::PointerType::get(ctx_, 0); }
  llvm::FixedVectorType* maskType() { return llvm::FixedVectorType::get(llvm::Type::getInt1Ty(ctx_), kLanes); }

  // ------------------------------------------------------------------------------------------
  // 1. The scalar copy, its built-ins as expressions of the lane.

  bool cloneScalar(const std::string& name) {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr(), i32(), i32(), i32(), i32()}, false);
    f_ = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name + ".scalar", module_);
    llvm::ValueToValueMapTy map;
    map[entry_.getArg(0)] = f_->getArg(0);
    llvm::SmallVector<llvm::ReturnInst*, 4> returns;
    llvm::CloneFunctionInto(f_, &entry_, map, llvm::CloneFunctionChangeType::LocalChangesOnly, returns);
    stripDebugInfoKeepingLoopPositions(*f_);
    return true;
  }

  llvm::Instruction* firstNonAlloca(llvm::BasicBlock& bb) {
    auto it = bb.getFirstInsertionPt();
    while (llvm::isa<llvm::AllocaInst>(*it)) ++it;
    return &*it;
  }

  bool computeBuiltins() {
    llvm::BasicBlock& first = f_->getEntryBlock();
    llvm::IRBuilder<> b(firstNonAlloca(first));
    llvm::FunctionCallee laneFn = module_.getOrInsertFunction(kLaneIndex, llvm::FunctionType::get(i32(), false));
    llvm::Function* laneDecl = llvm::cast<llvm::Function>(laneFn.getCallee());
    laneDecl->setDoesNotAccessMemory();
    laneDecl->setDoesNotThrow();
    laneDecl->addFnAttr(llvm::Attribute::WillReturn);
    llvm::CallInst* lane = b.CreateCall(laneFn);
    lane->setMetadata(llvm::LLVMContext::MD_range,
                      llvm::MDBuilder(ctx_).createRange(llvm::APInt(32, 0), llvm::APInt(32, kLanes)));
    // Calls of __mslsim_simd_lane (the standard library's `me`) are the same lane.
    if (llvm::Function* simdLane = module_.getFunction("__mslsim_simd_lane"))
      for (llvm::User* u : llvm::make_early_inc_range(simdLane->users()))
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(u); call && call->getFunction() == f_) {
          call->replaceAllUsesWith(lane);
          call->eraseFromParent();
        }
    llvm::Value* simdgroup = f_->getArg(1);
    llvm::Value* sx = f_->getArg(2);
    llvm::Value* sy = f_->getArg(3);
    llvm::Value* linear = b.CreateOr(b.CreateShl(simdgroup, 5, "", true, true), lane, "linear");
    // The position in the threadgroup by float division: once vectorised, an integer division by a
    // value the target cannot see is 32 scalar divisions. Exact here: a threadgroup has at most
    // 1024 threads, so a quotient k - r/d (r >= 1, d <= 1024) stays below k in float.
    auto divide = [&](llvm::Value* n, llvm::Value* d) {
      llvm::Type* f32 = b.getFloatTy();
      return b.CreateFPToUI(b.CreateFDiv(b.CreateUIToFP(n, f32), b.CreateUIToFP(d, f32)), i32());
    };
    // A threadgroup of one row (sx >= count, the usual 1-D dispatch) needs no division: a select
    // on that uniform condition, which LLVM's code generation turns into a branch around the
    // divisions.
    llvm::Value* oneRow = b.CreateICmpUGE(sx, f_->getArg(4), "one.row");
    llvm::Value* row = b.CreateSelect(oneRow, b.getInt32(0), divide(linear, sx));  // y + z * sy
    llvm::Value* plane = b.CreateSelect(oneRow, b.getInt32(0), divide(row, sy));   // z
    std::array<llvm::Value*, 3> local = {b.CreateSub(linear, b.CreateMul(row, sx)), b.CreateSub(row, b.CreateMul(plane, sy)),
                                         plane};

    // The slot loads of each varying built-in: `load ptr, args + 8k`, then loads from it.
    std::map<unsigned, const ArgumentInfo*> varying;
    for (const ArgumentInfo& a : info_.arguments)
      if (a.role == ArgumentRole::Builtin && variesPerThread(a.builtin)) varying[a.position] = &a;
    std::vector<std::pair<llvm::LoadInst*, const ArgumentInfo*>> slots;
    for (llvm::Instruction& inst : llvm::instructions(*f_))
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && load->getType()->isPointerTy()) {
        llvm::APInt offset(64, 0);
        llvm::Value* base = load->getPointerOperand()->stripAndAccumulateConstantOffsets(layout_, offset, false);
        if (base != f_->getArg(0) || offset.getZExtValue() % 8) continue;
        auto it = varying.find(unsigned(offset.getZExtValue() / 8));
        if (it != varying.end()) slots.push_back({load, it->second});
      }
    describeUniformBuiltins();
    for (auto [slot, a] : slots) {
      unsigned bytes = a->componentSize;
      // Thread 0's value of a component (the grid position's base), read at the entry.
      auto component = [&](unsigned c) -> llvm::Value* {
        if (c >= a->components) return b.getInt32(0);  // the slot's padding (a uint3 read as four)
        switch (a->builtin) {
          case BuiltinValue::ThreadPositionInGrid: {
            llvm::Value* slotPtr = b.CreateLoad(ptr(), b.CreateConstInBoundsGEP1_32(ptr(), f_->getArg(0), a->position));
            llvm::Value* base = b.CreateLoad(b.getIntNTy(8 * bytes), b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), slotPtr, c * bytes));
            return b.CreateAdd(b.CreateZExt(base, i32()), local[c], "", true);
          }
          case BuiltinValue::ThreadPositionInThreadgroup: return local[c];
          case BuiltinValue::ThreadIndexInThreadgroup: return c == 0 ? linear : b.getInt32(0);
          case BuiltinValue::ThreadIndexInSimdgroup: return c == 0 ? static_cast<llvm::Value*>(lane) : b.getInt32(0);
          case BuiltinValue::SimdgroupIndexInThreadgroup: return c == 0 ? simdgroup : b.getInt32(0);
          case BuiltinValue::ThreadIndexInQuadgroup: return c == 0 ? b.CreateAnd(lane, 3) : b.getInt32(0);
          case BuiltinValue::QuadgroupIndexInThreadgroup: return c == 0 ? b.CreateLShr(linear, 2) : b.getInt32(0);
          default: return nullptr;
        }
      };
      std::vector<std::pair<llvm::Instruction*, uint64_t>> work{{slot, 0}};
      std::vector<llvm::Instruction*> dead;
      while (!work.empty()) {
        auto [at, offset] = work.back();
        work.pop_back();
        for (llvm::User* u : at->users()) {
          auto* inst = llvm::cast<llvm::Instruction>(u);
          if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(inst)) {
            llvm::APInt more(64, 0);
            if (!gep->accumulateConstantOffset(layout_, more)) return fail("a built-in is read at a varying offset");
            work.push_back({gep, offset + more.getZExtValue()});
            dead.push_back(gep);
            continue;
          }
          auto* load = llvm::dyn_cast<llvm::LoadInst>(inst);
          if (!load || load->getPointerOperand() != at || offset % bytes)
            return fail("a built-in's storage is used other than by reads: " + describe(*inst));
          llvm::Type* t = load->getType();
          unsigned c = unsigned(offset / bytes);
          llvm::Value* value = nullptr;
          if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
            if (vt->getElementType()->getIntegerBitWidth() != 8 * bytes) return fail("a built-in is read as " + describe(*t));
            value = llvm::PoisonValue::get(vt);
            for (unsigned k = 0; k < vt->getNumElements(); ++k) {
              llvm::Value* v = component(c + k);
              if (!v) return fail("unexpected built-in");
              value = b.CreateInsertElement(value, b.CreateZExtOrTrunc(v, vt->getElementType()), k);
            }
          } else if (t->isIntegerTy() && t->getIntegerBitWidth() % (8 * bytes) == 0) {
            unsigned parts = t->getIntegerBitWidth() / (8 * bytes);
            for (unsigned k = 0; k < parts; ++k) {
              llvm::Value* v = component(c + k);
              if (!v) return fail("unexpected built-in");
              llvm::Value* part = b.CreateZExtOrTrunc(b.CreateZExtOrTrunc(v, b.getIntNTy(8 * bytes)), t);
              if (k) part = b.CreateShl(part, 8 * bytes * k);
              value = value ? b.CreateOr(value, part) : part;
            }
          } else {
            return fail("a built-in is read as " + describe(*t));
          }
          load->replaceAllUsesWith(value);
          dead.push_back(load);
        }
      }
      for (auto it = dead.rbegin(); it != dead.rend(); ++it)
        if ((*it)->use_empty()) (*it)->eraseFromParent();
    }
    return true;
  }

  // The ranges of the built-ins the lanes share, as metadata on their reads: a loop `i += size`
  // over threads_per_threadgroup then has a stride SCEV knows is positive (for checksPerLane's
  // loop versioning).
  void describeUniformBuiltins() {
    auto rangeOf = [](BuiltinValue v) -> std::optional<std::pair<uint64_t, uint64_t>> {
      switch (v) {
        case BuiltinValue::ThreadsPerThreadgroup:
        case BuiltinValue::DispatchThreadsPerThreadgroup: return std::make_pair(1, kMaxThreadsPerThreadgroup + 1);
        case BuiltinValue::SimdgroupsPerThreadgroup:
        case BuiltinValue::DispatchSimdgroupsPerThreadgroup:
          return std::make_pair(1, kMaxThreadsPerThreadgroup / kSimdWidth + 1);
        case BuiltinValue::ThreadsPerSimdgroup: return std::make_pair(kSimdWidth, kSimdWidth + 1);
        default: return std::nullopt;
      }
    };
    for (const ArgumentInfo& a : info_.arguments) {
      if (a.role != ArgumentRole::Builtin) continue;
      auto range = rangeOf(a.builtin);
      if (!range) continue;
      for (llvm::Instruction& inst : llvm::instructions(*f_)) {
        auto* slot = llvm::dyn_cast<llvm::LoadInst>(&inst);
        if (!slot || !slot->getType()->isPointerTy()) continue;
        llvm::APInt offset(64, 0);
        if (slot->getPointerOperand()->stripAndAccumulateConstantOffsets(layout_, offset, false) != f_->getArg(0) ||
            offset.getZExtValue() != 8ull * a.position)
          continue;
        std::vector<llvm::Value*> work{slot};
        while (!work.empty()) {
          llvm::Value* v = work.back();
          work.pop_back();
          for (llvm::User* u : v->users()) {
            if (llvm::isa<llvm::GetElementPtrInst>(u)) work.push_back(u);
            auto* read = llvm::dyn_cast<llvm::LoadInst>(u);
            if (!read || read->getPointerOperand() != v || !read->getType()->isIntegerTy(8 * a.componentSize)) continue;
            unsigned bits = read->getType()->getIntegerBitWidth();
            read->setMetadata(llvm::LLVMContext::MD_range,
                              llvm::MDBuilder(ctx_).createRange(llvm::APInt(bits, range->first), llvm::APInt(bits, range->second)));
          }
        }
      }
    }
  }

  // A checked build's access checks (instrumentMemoryAccesses): loops whose accesses stay in
  // range throughout run as a copy without their checks (the condition is per lane: the lanes for
  // which it holds take the copy), but not loops with a barrier, which would then be under a
  // lane-dependent branch. The remaining range compares become vector compares like any other;
  // the hooks of their slow paths are called once for the lanes that take them (emitLanesHook).
  bool checksPerLane() {
    runPasses([](llvm::FunctionPassManager& passes) {
      passes.addPass(llvm::LoopSimplifyPass());
      passes.addPass(llvm::LCSSAPass());
      RangeCheckVersioningPass versioning;
      versioning.mayVersion = [](const llvm::Loop& loop) {
        // Loops up to a small constant (MLX's `for (int i = 0; i < TM; i++)`, TM 2 to 8, dozens of
        // them in a quantized GEMM) save a handful of compares each: versioned, both copies are
        // unrolled, which made MLX qmm's compile 50% longer. Tile loops of 16 and more (a GEMM's
        // `for (p = 0; p < TILE; ++p)`) are worth their copy.
        if (llvm::BasicBlock* exiting = loop.getExitingBlock())
          if (auto* branch = llvm::dyn_cast<llvm::BranchInst>(exiting->getTerminator()); branch && branch->isConditional())
            if (auto* compare = llvm::dyn_cast<llvm::ICmpInst>(branch->getCondition()))
              for (llvm::Value* operand : compare->operands())
                if (auto* bound = llvm::dyn_cast<llvm::ConstantInt>(operand); bound && bound->getValue().ult(16))
                  return false;
        for (llvm::BasicBlock* bb : loop.blocks())
          for (llvm::Instruction& inst : *bb)
            if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst); call && isBarrier(*call)) return false;
        return true;
      };
      passes.addPass(std::move(versioning));
    });
    return true;
  }

  void runPasses(const std::function<void(llvm::FunctionPassManager&)>& add) {
    llvm::PassBuilder pb;
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::FunctionPassManager passes;
    add(passes);
    passes.run(*f_, fam);
  }

  bool simplify() {
    runPasses([](llvm::FunctionPassManager& passes) {
      passes.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      passes.addPass(llvm::EarlyCSEPass());
      passes.addPass(llvm::InstCombinePass());
      passes.addPass(llvm::SimplifyCFGPass());
      passes.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      passes.addPass(llvm::InstCombinePass());
    });
    llvm::removeUnreachableBlocks(*f_);
    return true;
  }

  // ------------------------------------------------------------------------------------------
  // 2. Structure and uniformity.

  std::unique_ptr<llvm::DominatorTree> dominators_;
  std::unique_ptr<llvm::LoopInfo> loops_;
  std::unique_ptr<llvm::PostDominatorTree> postDominators_;

  static bool named(const llvm::CallBase& call, const char* name) {
    const llvm::Function* f = call.getCalledFunction();
    return f && f->getName() == name;
  }
  static bool isExchange(const llvm::CallBase& c) { return named(c, hook::kSimdExchange); }
  static bool isBarrier(const llvm::CallBase& c) { return named(c, hook::kThreadgroupBarrier); }

  bool checkStructure() {
    dominators_ = std::make_unique<llvm::DominatorTree>(*f_);
    loops_ = std::make_unique<llvm::LoopInfo>(*dominators_);
    postDominators_ = std::make_unique<llvm::PostDominatorTree>(*f_);
    llvm::ReversePostOrderTraversal<const llvm::Function*> order(f_);
    if (llvm::containsIrreducibleCFG<const llvm::BasicBlock*>(order, *loops_)) return fail("irreducible control flow");
    for (llvm::BasicBlock& bb : *f_) {
      llvm::Instruction* t = bb.getTerminator();
      if (!llvm::isa<llvm::BranchInst, llvm::SwitchInst, llvm::ReturnInst, llvm::UnreachableInst>(t))
        return fail("a terminator it does not handle: " + describe(*t));
      for (llvm::Instruction& inst : bb)
        if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
          if (&bb != &f_->getEntryBlock() || !llvm::isa<llvm::ConstantInt>(a->getArraySize()))
            return fail("a dynamic alloca");
        } else if (llvm::isa<llvm::AtomicCmpXchgInst, llvm::LandingPadInst, llvm::VAArgInst, llvm::InvokeInst,
                             llvm::CallBrInst>(inst)) {
          return fail("an instruction it does not handle: " + describe(inst));
        }
    }
    // Shared buffers: an alloca only the exchange writes (the lanes buffer of a SIMD-group
    // function) holds the same 32 values in every lane that reads it, so the lanes share one.
    uint64_t privateBytes = 0;
    for (llvm::Instruction& inst : f_->getEntryBlock())
      if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
        if (isSharedBuffer(a))
          shared_.insert(a);
        else if (auto size = a->getAllocationSize(layout_))
          privateBytes += *size;
      }
    // Each lane's private memory, 32 times over, lives in the SIMD-group's frame or on the worker's
    // stack: large private arrays stay with the per-thread paths (a frame per thread).
    if (privateBytes > kMaxPrivateBytesPerLane)
      return fail("private arrays of " + std::to_string(privateBytes) + " bytes per thread (at most " +
                  std::to_string(kMaxPrivateBytesPerLane) + ")");
    return true;
  }
  static constexpr uint64_t kMaxPrivateBytesPerLane = 4096;

  std::set<const llvm::AllocaInst*> shared_;
  bool isSharedBuffer(llvm::AllocaInst* a) {
    unsigned exchanges = 0;
    std::vector<llvm::Value*> work{a};
    std::set<llvm::Value*> seen{a};
    while (!work.empty()) {
      llvm::Value* v = work.back();
      work.pop_back();
      for (llvm::User* u : v->users()) {
        // Pointers into it, and pointers that may be into it (`active ? &v[l] : &undefined`).
        if (llvm::isa<llvm::GetElementPtrInst, llvm::BitCastInst, llvm::SelectInst, llvm::PHINode>(u)) {
          if (seen.insert(u).second) work.push_back(u);
        } else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u)) {
          if (load->getPointerOperand() != v) return false;
        } else if (llvm::isa<llvm::PtrToIntInst>(u)) {
          continue;  // an address compared (a checked build's bounds check of a read from it)
        } else if (auto* call = llvm::dyn_cast<llvm::CallBase>(u)) {
          if (call->isLifetimeStartOrEnd() || named(*call, hook::kPrivateOverrun)) continue;  // reports only
          if (auto* copy = llvm::dyn_cast<llvm::MemTransferInst>(call); copy && copy->getRawSource() == v && copy->getRawDest() != v)
            continue;  // a copy out of it reads it
          if (named(*call, hook::kSimdgroupMma) && call->getArgOperand(0) == v) continue;  // reads the operands
          if (!isExchange(*call) || call->getArgOperand(0) == v || call->getArgOperand(1) != v) return false;
          ++exchanges;
        } else {
          return false;
        }
      }
    }
    return exchanges > 0;
  }

  std::set<const llvm::Value*> varying_;
  std::set<const llvm::BasicBlock*> influenced_;  // blocks under lane-dependent control flow

  static bool isPureCall(const llvm::CallBase& call) {
    const llvm::Function* f = call.getCalledFunction();
    if (!f) return false;
    // The access filter is the threadgroup's (one table for all its threads).
    if (f->getName() == hook::kThreadgroupArena || f->getName() == kLaneIndex || f->getName() == hook::kAccessFilter)
      return true;
    if (f->getName().startswith("__mslsim_")) return false;
    return call.doesNotAccessMemory() || (f->isDeclaration() && isAllowedHostSymbol(f->getName().str()));
  }

  bool seedsVarying(const llvm::Instruction& inst) {
    if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst)) return !shared_.count(a);
    if (llvm::isa<llvm::AtomicRMWInst>(inst)) return true;
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
      if (named(*call, kLaneIndex)) return true;
      // A check's answer depends on the access alone (vector lanes run only the checks for which
      // it does): the lanes agree on it where they agree on the address and the stored value.
      if (named(*call, hook::kAccess)) return false;
      if (isExchange(*call) || isBarrier(*call) || call->getType()->isVoidTy()) return false;
      if (!isPureCall(*call)) return true;  // run per lane
    }
    return false;
  }

  bool operandVaries(const llvm::Instruction& inst) {
    for (const llvm::Use& op : inst.operands())
      if (varying_.count(op.get())) {
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst); call && isExchange(*call)) return false;  // a mask
        return true;
      }
    return false;
  }

  bool analyse() {
    for (bool changed = true; changed;) {
      changed = false;
      // Lane-dependent branches, where lanes may meet again, and the loops lanes may leave apart.
      std::set<const llvm::BasicBlock*> joins;
      std::set<const llvm::Loop*> divergentLoops;
      influenced_.clear();
      for (llvm::BasicBlock& bb : *f_) {
        llvm::Instruction* t = bb.getTerminator();
        llvm::Value* condition = nullptr;
        if (auto* br = llvm::dyn_cast<llvm::BranchInst>(t); br && br->isConditional()) condition = br->getCondition();
        if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t)) condition = sw->getCondition();
        if (!condition || !varying_.count(condition)) continue;
        llvm::DomTreeNode* node = postDominators_->getNode(&bb);
        llvm::BasicBlock* until = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
        std::map<const llvm::BasicBlock*, unsigned> reached;
        std::set<llvm::BasicBlock*> successors(llvm::succ_begin(&bb), llvm::succ_end(&bb));
        for (llvm::BasicBlock* s : successors) {
          std::set<llvm::BasicBlock*> seen{s};
          std::vector<llvm::BasicBlock*> work{s};
          while (!work.empty()) {
            llvm::BasicBlock* x = work.back();
            work.pop_back();
            ++reached[x];
            if (x == until) continue;
            influenced_.insert(x);
            for (llvm::BasicBlock* y : llvm::successors(x))
              if (seen.insert(y).second) work.push_back(y);
          }
        }
        for (auto [block, count] : reached)
          if (count > 1) joins.insert(block);
        // Lanes may leave a loop around the branch apart (in different iterations, or some not at
        // all) when the branch leaves it, or its lanes reach an exit or go round before they meet
        // again. Where they meet within the iteration (a bounds check's hook, a versioned inner
        // loop), every lane leaves by the loop's own exits: a uniform exit keeps them together.
        for (llvm::Loop* l = loops_->getLoopFor(&bb); l; l = l->getParentLoop()) {
          bool apart = l->isLoopExiting(&bb);
          for (auto [block, count] : reached)
            if (block != until)
              apart = apart || !l->contains(block) || l->isLoopExiting(block) || block == l->getHeader();
          if (apart) divergentLoops.insert(l);
        }
      }
      for (llvm::BasicBlock* bb : llvm::ReversePostOrderTraversal<llvm::Function*>(f_))
        for (llvm::Instruction& inst : *bb) {
          if (varying_.count(&inst)) continue;
          bool varies = seedsVarying(inst) || operandVaries(inst);
          if (!varies && llvm::isa<llvm::PHINode>(inst)) varies = joins.count(bb) > 0;
          if (!varies && !inst.getType()->isVoidTy())
            if (llvm::Loop* l = loops_->getLoopFor(bb))
              for (; l && !varies; l = l->getParentLoop())
                if (divergentLoops.count(l))
                  for (llvm::User* u : inst.users())
                    if (!l->contains(llvm::cast<llvm::Instruction>(u)->getParent())) varies = true;
          if (varies) {
            varying_.insert(&inst);
            changed = true;
          }
        }
    }
    // A barrier must be reached by the whole SIMD-group (lanes that returned aside).
    for (llvm::Instruction& inst : llvm::instructions(*f_))
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst); call && isBarrier(*call) && influenced_.count(inst.getParent()))
        return fail("a threadgroup_barrier under control flow that depends on the lane");
    return true;
  }

  // ------------------------------------------------------------------------------------------
  // 3. Slots.

  std::map<const llvm::AllocaInst*, bool> slots_;                    // slot -> whether it varies
  std::map<const llvm::StoreInst*, llvm::BasicBlock*> phiStores_;     // store -> the phi's block
  // Varying slots whose value is used only within the iteration of its loop that computed it:
  // each round of the loop starts them undefined, as the first does (emitLoop), so that what the
  // lanes left there in an earlier round is not carried along (storeSlot keeps inactive lanes'
  // values), nor kept across a barrier in the loop (a checked access's address, computed in the
  // check's block and used in the access's, was a frame spill of 4 vector registers per round).
  std::map<const llvm::Loop*, std::vector<const llvm::AllocaInst*>> roundSlots_;

  // Whether every use of `inst` is in its own innermost loop, where its block dominates the use's
  // (the lanes that reach a use computed the value in the same round).
  const llvm::Loop* roundLocalLoop(const llvm::Instruction& inst) const {
    const llvm::Loop* loop = loops_->getLoopFor(inst.getParent());
    if (!loop) return nullptr;
    for (const llvm::User* u : inst.users()) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(u);
      if (!user || llvm::isa<llvm::PHINode>(user) || !loop->contains(user->getParent()) ||
          !dominators_->dominates(inst.getParent(), user->getParent()))
        return nullptr;
    }
    return loop;
  }

  bool demote() {
    llvm::Instruction* at = &*f_->getEntryBlock().begin();
    std::vector<llvm::Instruction*> escaping;
    for (llvm::BasicBlock& bb : *f_)
      for (llvm::Instruction& inst : bb)
        if (!llvm::isa<llvm::AllocaInst>(inst) && inst.isUsedOutsideOfBlock(&bb)) escaping.push_back(&inst);
    for (llvm::Instruction* inst : escaping) {
      bool varies = varying_.count(inst) > 0;
      const llvm::Loop* round = varies ? roundLocalLoop(*inst) : nullptr;
      if (llvm::AllocaInst* slot = llvm::DemoteRegToStack(*inst, false, at)) {
        slots_[slot] = varies;
        if (round) roundSlots_[round].push_back(slot);
      }
    }
    std::vector<llvm::PHINode*> phis;
    for (llvm::BasicBlock& bb : *f_)
      for (llvm::PHINode& phi : bb.phis()) phis.push_back(&phi);
    for (llvm::PHINode* phi : phis) {
      bool varies = varying_.count(phi) > 0;
      llvm::BasicBlock* target = phi->getParent();
      llvm::AllocaInst* slot = llvm::DemotePHIToStack(phi, at);
      if (!slot) return fail("a phi could not be demoted");
      slots_[slot] = varies;
      for (llvm::User* u : slot->users())
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u)) phiStores_[store] = target;
    }
    // Uniformity again, now that every value lives in its block: a slot's loads vary when the
    // value it holds did.
    varying_.clear();
    for (llvm::BasicBlock& bb : *f_)
      for (llvm::Instruction& inst : bb) {
        bool varies;
        if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst))
          varies = !slots_.count(a) && !shared_.count(a);
        else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && slotOf(load->getPointerOperand()))
          varies = slots_[slotOf(load->getPointerOperand())];
        else
          varies = seedsVarying(inst) || operandVaries(inst);
        if (varies) varying_.insert(&inst);
      }
    return true;
  }

  const llvm::AllocaInst* slotOf(const llvm::Value* pointer) {
    auto* a = llvm::dyn_cast<llvm::AllocaInst>(pointer);
    return a && slots_.count(a) ? a : nullptr;
  }

  // ------------------------------------------------------------------------------------------
  // 4. Emission.

  llvm::IRBuilder<>* b_ = nullptr;
  std::map<const llvm::Value*, llvm::Value*> values_;  // scalar copy -> SIMD-group function
  std::map<const llvm::AllocaInst*, llvm::AllocaInst*> slotOfG_;
  std::map<const llvm::BasicBlock*, llvm::AllocaInst*> masks_;
  llvm::Value* lanes32_ = nullptr;  // <0, 1, ..., 31> as i32
  llvm::Value* lanes64_ = nullptr;  // and as i64

  // The vector type a per-lane value of type t becomes, or null.
  llvm::Type* wide(llvm::Type* t) {
    if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
      llvm::Type* e = v->getElementType();
      if (!e->isIntegerTy() && !e->isFloatingPointTy() && !e->isPointerTy()) return nullptr;
      return llvm::FixedVectorType::get(e, v->getNumElements() * kLanes);
    }
    if (t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy()) return llvm::FixedVectorType::get(t, kLanes);
    return nullptr;
  }
  static unsigned width(llvm::Type* t) {  // components per lane
    auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
    return v ? v->getNumElements() : 1;
  }

  bool isVarying(const llvm::Value* v) const { return varying_.count(v) > 0; }
  // A uniform vector with one element per lane.
  bool isLaneVector(const llvm::Value* v) const {
    auto* t = llvm::dyn_cast<llvm::FixedVectorType>(v->getType());
    return !isVarying(v) && t && t->getNumElements() == kLanes;
  }
  // The lane's index (the standard library's `me`), however wide.
  static bool isLaneIndex(const llvm::Value* v) {
    while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) {
      if (!llvm::isa<llvm::ZExtInst, llvm::SExtInst, llvm::TruncInst>(cast) ||
          cast->getSrcTy()->getScalarSizeInBits() < 5 || cast->getDestTy()->getScalarSizeInBits() < 5)
        return false;
      v = cast->getOperand(0);
    }
    auto* call = llvm::dyn_cast<llvm::CallInst>(v);
    return call && call->getCalledFunction() && call->getCalledFunction()->getName() == kLaneIndex;
  }
  llvm::Value* lookup(const llvm::Value* v) {
    auto it = values_.find(v);
    if (it == values_.end()) throw std::out_of_range("no value for " + describe(*v));
    return it->second;
  }
  llvm::Value* scalar(llvm::Value* v) {
    if (llvm::isa<llvm::Constant>(v)) return v;
    if (auto* a = llvm::dyn_cast<llvm::Argument>(v)) return g_->getArg(a->getArgNo());
    return lookup(v);
  }
  // Each lane's copy of a uniform value, a component-wise copy for a per-lane vector.
  llvm::Value* broadcast(llvm::Value* s) {
    if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(s->getType())) {
      std::vector<int> mask;
      for (unsigned l = 0; l < kLanes; ++l)
        for (unsigned c = 0; c < v->getNumElements(); ++c) mask.push_back(int(c));
      return b_->CreateShuffleVector(s, mask);
    }
    return b_->CreateVectorSplat(kLanes, s);
  }
  llvm::Value* vec(llvm::Value* v) { return isVarying(v) ? lookup(v) : broadcast(scalar(v)); }
  // Each lane's bit repeated for each of its n components.
  llvm::Value* expand(llvm::Value* laneVector, unsigned n) {
    if (n == 1) return laneVector;
    std::vector<int> mask;
    for (unsigned l = 0; l < kLanes; ++l)
      for (unsigned c = 0; c < n; ++c) mask.push_back(int(l));
    return b_->CreateShuffleVector(laneVector, mask);
  }
  llvm::Value* any(llvm::Value* mask) { return b_->CreateOrReduce(mask); }
  llvm::Value* noLanes() { return llvm::Constant::getNullValue(maskType()); }

  // Pointers to each component of each lane's n-component value of element type e at `pointers`.
  llvm::Value* componentPointers(llvm::Value* pointers, llvm::Type* e, unsigned n) {
    if (n == 1) return pointers;
    std::vector<llvm::Constant*> index;
    for (unsigned l = 0; l < kLanes; ++l)
      for (unsigned c = 0; c < n; ++c) index.push_back(llvm::ConstantInt::get(i64(), c));
    return b_->CreateGEP(e, expand(pointers, n), llvm::ConstantVector::get(index));
  }
  llvm::Type* elementOf(llvm::Type* t) {
    auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
    return v ? v->getElementType() : t;
  }

  bool emit(const std::string& name) {
    auto* type = f_->getFunctionType();
    g_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
    g_->addFnAttr(llvm::Attribute::NoUnwind);
    for (const char* attribute : {"target-cpu", "target-features", "tune-cpu"})
      if (entry_.hasFnAttribute(attribute)) g_->addFnAttr(entry_.getFnAttribute(attribute));
    llvm::BasicBlock* start = llvm::BasicBlock::Create(ctx_, "entry", g_);
    llvm::IRBuilder<> b(start);
    b_ = &b;
    std::vector<llvm::Constant*> l32, l64;
    for (unsigned l = 0; l < kLanes; ++l) {
      l32.push_back(llvm::ConstantInt::get(i32(), l));
      l64.push_back(llvm::ConstantInt::get(i64(), l));
    }
    lanes32_ = llvm::ConstantVector::get(l32);
    lanes64_ = llvm::ConstantVector::get(l64);
    // Memory: slots, shared buffers, each lane's private objects.
    for (llvm::Instruction& inst : f_->getEntryBlock()) {
      auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst);
      if (!a) continue;
      llvm::Type* t = a->getAllocatedType();
      if (uint64_t n = llvm::cast<llvm::ConstantInt>(a->getArraySize())->getZExtValue(); n != 1) t = llvm::ArrayType::get(t, n);
      if (slots_.count(a)) {
        llvm::Type* held = slots_[a] ? wide(t) : t;
        if (!held) return fail("a lane-varying value of type " + describe(*t));
        slotOfG_[a] = b.CreateAlloca(held);
      } else if (shared_.count(a)) {
        llvm::AllocaInst* copy = b.CreateAlloca(t);
        copy->setAlignment(a->getAlign());
        values_[a] = copy;
      } else {
        llvm::AllocaInst* copy = b.CreateAlloca(llvm::ArrayType::get(t, kLanes));
        copy->setAlignment(a->getAlign());
        values_[a] = copy;  // each lane's object: replaced by the pointer vector below
        privateCopies_[a] = copy;
      }
    }
    for (llvm::BasicBlock& bb : *f_) {
      masks_[&bb] = b.CreateAlloca(maskType());
    }
    for (llvm::Instruction& inst : f_->getEntryBlock())
      if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&inst); a && !slots_.count(a) && !shared_.count(a)) {
        llvm::Type* t = llvm::cast<llvm::AllocaInst>(values_[a])->getAllocatedType()->getArrayElementType();
        values_[a] = b.CreateGEP(t, values_[a], lanes64_);
      }
    for (auto& [bb, slot] : masks_) b.CreateStore(noLanes(), slot);
    // The lanes that exist: the last SIMD-group of a threadgroup may be partial.
    llvm::Value* linear = b.CreateOr(b.CreateVectorSplat(kLanes, b.CreateShl(g_->getArg(1), 5)), lanes32_);
    b.CreateStore(b.CreateICmpULT(linear, b.CreateVectorSplat(kLanes, g_->getArg(4))), masks_[&f_->getEntryBlock()]);
    if (!emitLevel(nullptr)) return false;
    b.CreateRetVoid();
    b_ = nullptr;
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyFunction(*g_, &os)) return fail("internal error, the vectorised function is invalid: " + problems.substr(0, 300));
    return true;
  }

  // The blocks and loops of one loop level (the function's when `loop` is null), in reverse
  // post-order of the graph where each nested loop is one node.
  bool emitLevel(llvm::Loop* loop) {
    auto nodeOf = [&](llvm::BasicBlock* bb) -> std::optional<Node> {
      if (loop && !loop->contains(bb)) return std::nullopt;  // leaves the level
      llvm::Loop* l = loops_->getLoopFor(bb);
      if (l == loop) return Node{bb, nullptr};
      while (l->getParentLoop() != loop) l = l->getParentLoop();
      return Node{nullptr, l};
    };
    llvm::BasicBlock* header = loop ? loop->getHeader() : &f_->getEntryBlock();
    std::vector<Node> postOrder;
    std::set<const void*> seen;
    std::function<void(Node)> visit = [&](Node n) {
      if (!seen.insert(n.key()).second) return;
      std::vector<llvm::BasicBlock*> next;
      if (n.block) {
        for (llvm::BasicBlock* s : llvm::successors(n.block)) next.push_back(s);
      } else {
        llvm::SmallVector<llvm::BasicBlock*, 4> exits;
        n.loop->getExitBlocks(exits);
        next.assign(exits.begin(), exits.end());
      }
      for (llvm::BasicBlock* s : next) {
        if (s == header) continue;  // the back edge of this level's loop
        if (auto m = nodeOf(s)) visit(*m);
      }
      postOrder.push_back(n);
    };
    visit(Node{header, nullptr});
    for (auto it = postOrder.rbegin(); it != postOrder.rend(); ++it)
      if (!(it->block ? emitBlock(*it->block) : isUniform(*it->loop) ? emitUniformLoop(*it->loop) : emitLoop(*it->loop)))
        return false;
    return true;
  }

  // A loop whose branches all go the same way for every lane (a loop over the 32 exchanged values
  // in a SIMD-group function): the lanes that enter it run it together to the same exit.
  bool isUniform(const llvm::Loop& loop) const {
    for (llvm::BasicBlock* bb : loop.blocks()) {
      const llvm::Instruction* t = bb->getTerminator();
      if (auto* br = llvm::dyn_cast<llvm::BranchInst>(t); br && br->isConditional() && isVarying(br->getCondition())) return false;
      if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t); sw && isVarying(sw->getCondition())) return false;
    }
    return true;
  }

  // Such a loop keeps its control flow: its blocks are copied with their branches, and every lane
  // that entered runs each block it reaches (one mask for the whole loop). Leaving it, the lanes
  // join the mask of the block they left for.
  bool emitUniformLoop(llvm::Loop& loop) {
    llvm::Value* mask = b_->CreateLoad(maskType(), masks_[loop.getHeader()]);
    b_->CreateStore(noLanes(), masks_[loop.getHeader()]);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx_, "uniform.loop.done", g_);
    std::map<const llvm::BasicBlock*, llvm::BasicBlock*> copies;
    for (llvm::BasicBlock* bb : loop.blocks()) copies[bb] = llvm::BasicBlock::Create(ctx_, bb->getName(), g_);
    b_->CreateCondBr(any(mask), copies[loop.getHeader()], after);
    auto target = [&](llvm::BasicBlock* s) -> llvm::BasicBlock* {
      if (copies.count(s)) return copies[s];
      llvm::BasicBlock* leave = llvm::BasicBlock::Create(ctx_, "uniform.loop.exit", g_);
      llvm::IRBuilder<> lb(leave);
      addLanes(lb, s, mask);
      lb.CreateBr(after);
      return leave;
    };
    for (llvm::BasicBlock* bb : loop.blocks()) {
      b_->SetInsertPoint(copies[bb]);
      for (llvm::Instruction& inst : *bb) {
        if (inst.isTerminator()) break;
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && phiStores_.count(store)) {
          if (!storeSlot(*store, mask, /*guard=*/false)) return false;
          continue;
        }
        if (!emitInstruction(inst, mask)) return false;
      }
      llvm::Instruction* t = bb->getTerminator();
      if (auto* br = llvm::dyn_cast<llvm::BranchInst>(t)) {
        if (br->isUnconditional())
          b_->CreateBr(target(br->getSuccessor(0)));
        else
          b_->CreateCondBr(scalar(br->getCondition()), target(br->getSuccessor(0)), target(br->getSuccessor(1)));
      } else if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t)) {
        llvm::SwitchInst* copy = b_->CreateSwitch(scalar(sw->getCondition()), target(sw->getDefaultDest()), sw->getNumCases());
        for (auto& kase : sw->cases()) copy->addCase(kase.getCaseValue(), target(kase.getCaseSuccessor()));
      } else if (llvm::isa<llvm::ReturnInst>(t)) {
        b_->CreateBr(after);  // these lanes are done
      } else {
        b_->CreateUnreachable();
      }
    }
    b_->SetInsertPoint(after);
    return true;
  }

  bool emitLoop(llvm::Loop& loop) {
    llvm::BasicBlock* top = llvm::BasicBlock::Create(ctx_, "loop", g_);
    b_->CreateBr(top);
    b_->SetInsertPoint(top);
    for (const llvm::AllocaInst* slot : roundSlots_[&loop]) {
      llvm::AllocaInst* g = slotOfG_.at(slot);
      b_->CreateStore(llvm::UndefValue::get(g->getAllocatedType()), g);
    }
    if (!emitLevel(&loop)) return false;
    // Round again while some lane went back to the header.
    llvm::Value* again = any(b_->CreateLoad(maskType(), masks_[loop.getHeader()]));
    llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx_, "loop.done", g_);
    b_->CreateCondBr(again, top, after);
    b_->SetInsertPoint(after);
    return true;
  }

  bool emitBlock(llvm::BasicBlock& bb) {
    llvm::Value* mask = b_->CreateLoad(maskType(), masks_[&bb]);
    b_->CreateStore(noLanes(), masks_[&bb]);  // taken: the next round of a loop starts afresh
    llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, bb.getName(), g_);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx_, bb.getName() + ".next", g_);
    llvm::BranchInst* enter = b_->CreateCondBr(any(mask), body, next);
    // A block the scalar code marks as rare (a check's slow path, with its hook call) stays so:
    // the register allocator then keeps the spills around the call, which clobbers every vector
    // register, on that path instead of on every access's fast path.
    if (isRare(bb))
      enter->setMetadata(llvm::LLVMContext::MD_prof, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_->SetInsertPoint(body);
    for (llvm::Instruction& inst : bb) {
      if (inst.isTerminator()) break;
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && phiStores_.count(store)) continue;
      if (!emitInstruction(inst, mask)) return false;
    }
    if (!emitTerminator(bb, mask)) return false;
    b_->CreateBr(next);
    b_->SetInsertPoint(next);
    return true;
  }

  // Whether every branch into `bb` takes it at most once in 1024 by its weights (!prof).
  static bool isRare(const llvm::BasicBlock& bb) {
    if (llvm::pred_empty(&bb)) return false;
    for (const llvm::BasicBlock* from : llvm::predecessors(&bb)) {
      auto* branch = llvm::dyn_cast<llvm::BranchInst>(from->getTerminator());
      uint64_t taken, notTaken;
      if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1) ||
          !llvm::extractBranchWeights(*branch, taken, notTaken))
        return false;
      if (branch->getSuccessor(1) == &bb) std::swap(taken, notTaken);
      if (taken * 1024 > notTaken) return false;
    }
    return true;
  }

  void addLanes(llvm::BasicBlock* to, llvm::Value* lanes) { addLanes(*b_, to, lanes); }
  void addLanes(llvm::IRBuilder<>& b, llvm::BasicBlock* to, llvm::Value* lanes) {
    llvm::AllocaInst* slot = masks_[to];
    b.CreateStore(b.CreateOr(b.CreateLoad(maskType(), slot), lanes), slot);
  }

  bool emitTerminator(llvm::BasicBlock& bb, llvm::Value* mask) {
    llvm::Instruction* t = bb.getTerminator();
    std::map<llvm::BasicBlock*, llvm::Value*> edges;  // successor -> lanes taking it
    auto take = [&](llvm::BasicBlock* s, llvm::Value* lanes) {
      edges[s] = edges.count(s) ? b_->CreateOr(edges[s], lanes) : lanes;
    };
    if (auto* br = llvm::dyn_cast<llvm::BranchInst>(t)) {
      if (br->isUnconditional()) {
        take(br->getSuccessor(0), mask);
      } else if (!isVarying(br->getCondition())) {
        llvm::Value* c = scalar(br->getCondition());
        take(br->getSuccessor(0), b_->CreateSelect(c, mask, noLanes()));
        take(br->getSuccessor(1), b_->CreateSelect(c, noLanes(), mask));
      } else {
        llvm::Value* c = b_->CreateFreeze(vec(br->getCondition()));
        take(br->getSuccessor(0), b_->CreateAnd(mask, c));
        take(br->getSuccessor(1), b_->CreateAnd(mask, b_->CreateNot(c)));
      }
    } else if (auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t)) {
      llvm::Value* c = b_->CreateFreeze(vec(sw->getCondition()));
      llvm::Value* rest = mask;
      for (auto& kase : sw->cases()) {
        llvm::Value* hit = b_->CreateAnd(mask, b_->CreateICmpEQ(c, broadcast(kase.getCaseValue())));
        take(kase.getCaseSuccessor(), hit);
        rest = b_->CreateAnd(rest, b_->CreateNot(hit));
      }
      take(sw->getDefaultDest(), rest);
    }
    // A phi's incoming value, stored by its predecessor for the lanes that take the edge.
    for (llvm::Instruction& inst : bb)
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && phiStores_.count(store)) {
        llvm::BasicBlock* target = phiStores_[store];
        if (!edges.count(target)) continue;
        if (!storeSlot(*store, edges[target], /*guard=*/true)) return false;
      }
    for (auto& [s, lanes] : edges) addLanes(s, lanes);
    return true;
  }

  // A store to a slot: a varying slot takes the value of `lanes`; a uniform one is written when any
  // lane is there (with `guard`, tested here: a phi's edge may be taken by none).
  bool storeSlot(llvm::StoreInst& store, llvm::Value* lanes, bool guard) {
    const llvm::AllocaInst* slot = slotOf(store.getPointerOperand());
    llvm::AllocaInst* g = slotOfG_.at(slot);
    llvm::Value* value = store.getValueOperand();
    if (slots_[slot]) {
      llvm::Type* t = g->getAllocatedType();
      llvm::Value* old = b_->CreateLoad(t, g);
      b_->CreateStore(b_->CreateSelect(expand(lanes, width(value->getType())), vec(value), old), g);
      return true;
    }
    if (!guard) {
      b_->CreateStore(scalar(value), g);
      return true;
    }
    llvm::Value* old = b_->CreateLoad(g->getAllocatedType(), g);
    b_->CreateStore(b_->CreateSelect(any(lanes), scalar(value), old), g);
    return true;
  }

  llvm::Value* laneValue(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Value* lane) {
    if (!isVarying(v)) return scalar(v);
    llvm::Value* w = lookup(v);
    unsigned n = width(v->getType());
    if (n == 1 && !v->getType()->isVectorTy()) return b.CreateExtractElement(w, lane);
    llvm::Value* r = llvm::PoisonValue::get(v->getType());
    for (unsigned c = 0; c < n; ++c)
      r = b.CreateInsertElement(r, b.CreateExtractElement(w, b.CreateAdd(b.CreateMul(lane, b.getInt32(n)), b.getInt32(c))), c);
    return r;
  }

  // `inst` once for each lane of `lanes`, in lane order, its operands that lane's values.
  bool perLane(llvm::Instruction& inst, llvm::Value* lanes) {
    llvm::Type* t = inst.getType();
    llvm::Type* resultType = t->isVoidTy() ? nullptr : wide(t);
    if (!t->isVoidTy() && !resultType) return fail("a lane-varying value of type " + describe(*t));
    llvm::BasicBlock* before = b_->GetInsertBlock();
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "lane", g_);
    llvm::BasicBlock* active = llvm::BasicBlock::Create(ctx_, "lane.active", g_);
    llvm::BasicBlock* latch = llvm::BasicBlock::Create(ctx_, "lane.next", g_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "lane.done", g_);
    b_->CreateBr(loop);
    llvm::IRBuilder<> b(loop);
    llvm::PHINode* lane = b.CreatePHI(i32(), 2);
    lane->addIncoming(b.getInt32(0), before);
    llvm::PHINode* acc = resultType ? b.CreatePHI(resultType, 2) : nullptr;
    if (acc) acc->addIncoming(llvm::PoisonValue::get(resultType), before);
    b.CreateCondBr(b.CreateExtractElement(lanes, lane), active, latch);
    b.SetInsertPoint(active);
    llvm::Instruction* copy = inst.clone();
    for (unsigned i = 0; i < inst.getNumOperands(); ++i) {
      llvm::Value* op = inst.getOperand(i);
      if (llvm::isa<llvm::Function>(op) || llvm::isa<llvm::BasicBlock>(op) || llvm::isa<llvm::MetadataAsValue>(op)) continue;
      copy->setOperand(i, laneValue(b, op, lane));
    }
    b.Insert(copy);
    llvm::Value* updated = nullptr;
    if (acc) {
      unsigned n = width(t);
      if (!t->isVectorTy()) {
        updated = b.CreateInsertElement(acc, copy, lane);
      } else {
        updated = acc;
        for (unsigned c = 0; c < n; ++c)
          updated = b.CreateInsertElement(updated, b.CreateExtractElement(copy, c),
                                          b.CreateAdd(b.CreateMul(lane, b.getInt32(n)), b.getInt32(c)));
      }
    }
    b.CreateBr(latch);
    b.SetInsertPoint(latch);
    llvm::PHINode* result = nullptr;
    if (acc) {
      result = b.CreatePHI(resultType, 2);
      result->addIncoming(acc, loop);
      result->addIncoming(updated, active);
      acc->addIncoming(result, latch);
    }
    llvm::Value* next = b.CreateAdd(lane, b.getInt32(1));
    lane->addIncoming(next, latch);
    b.CreateCondBr(b.CreateICmpULT(next, b.getInt32(kLanes)), loop, done);
    b_->SetInsertPoint(done);
    if (result) values_[&inst] = result;
    return true;
  }

  void cloneUniform(llvm::Instruction& inst) {
    llvm::Instruction* copy = inst.clone();
    for (unsigned i = 0; i < inst.getNumOperands(); ++i) {
      llvm::Value* op = inst.getOperand(i);
      if (llvm::isa<llvm::Function>(op) || llvm::isa<llvm::BasicBlock>(op) || llvm::isa<llvm::MetadataAsValue>(op)) continue;
      copy->setOperand(i, scalar(op));
    }
    b_->Insert(copy);
    values_[&inst] = copy;
  }

  // A load or store of a whole private object of scalar or vector type (`float t = ...`, a
  // SIMD-group function's copy of its argument): every lane's own, side by side in the lanes' copy
  // (lane-major), so one vector access at the copy without testing the addresses. Null otherwise.
  // Only for plain accesses: a volatile one (a kernel spinning on a local) stays as it was.
  llvm::AllocaInst* wholeOwnObject(llvm::Value* pointer, llvm::Type* accessed) {
    auto* a = llvm::dyn_cast<llvm::AllocaInst>(pointer);
    auto copy = a ? privateCopies_.find(a) : privateCopies_.end();
    if (copy == privateCopies_.end() || a->getAllocatedType() != accessed || !a->isStaticAlloca() ||
        !llvm::cast<llvm::ConstantInt>(a->getArraySize())->isOne())
      return nullptr;
    llvm::Type* e = elementOf(accessed);
    if (layout_.getTypeAllocSize(accessed) != uint64_t(width(accessed)) * layout_.getTypeAllocSize(e) ||
        layout_.getTypeSizeInBits(e) != 8 * layout_.getTypeAllocSize(e))
      return nullptr;  // padding between lanes' objects (float3), or a vector of bits (bool)
    return copy->second;
  }
  std::map<const llvm::AllocaInst*, llvm::AllocaInst*> privateCopies_;  // each lane's object, lane-major

  static llvm::Align elementAlign(llvm::Align a, llvm::Type* e, const llvm::DataLayout& dl) {
    return llvm::commonAlignment(a, dl.getTypeStoreSize(e));
  }

  // A gather or scatter at `pointers` (of elements of type e), or, when they turn out to be
  // consecutive (x[gid], a lane's own slot of a private array), the vector load or store at the
  // first: tested when it runs, as what the index is made of (a division by the threadgroup's
  // width, a value loaded from memory) rarely shows it. Returns the load's value.
  llvm::Value* consecutively(llvm::Value* pointers, llvm::Type* e, const std::function<llvm::Value*(llvm::Value*)>& contiguous,
                             const std::function<llvm::Value*()>& scattered) {
    auto* type = llvm::cast<llvm::FixedVectorType>(pointers->getType());
    uint64_t size = layout_.getTypeStoreSize(e);
    if (layout_.getTypeAllocSize(e) != size) return scattered();
    llvm::Value* first = b_->CreateExtractElement(pointers, uint64_t(0));
    std::vector<llvm::Constant*> offsets;
    for (unsigned i = 0; i < type->getNumElements(); ++i) offsets.push_back(llvm::ConstantInt::get(i64(), i * size));
    llvm::Value* expected = b_->CreateGEP(b_->getInt8Ty(), first, llvm::ConstantVector::get(offsets));
    llvm::Value* together = b_->CreateAndReduce(b_->CreateICmpEQ(pointers, expected));
    return eitherWay(together, [&] { return contiguous(first); }, scattered, "consecutive", "scattered");
  }

  // `yes()` or `no()` as `condition` says, in blocks of their own; the value either returns.
  llvm::Value* eitherWay(llvm::Value* condition, const std::function<llvm::Value*()>& yes,
                         const std::function<llvm::Value*()>& no, const char* yesName, const char* noName) {
    llvm::BasicBlock* yesBlock = llvm::BasicBlock::Create(ctx_, yesName, g_);
    llvm::BasicBlock* noBlock = llvm::BasicBlock::Create(ctx_, noName, g_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "accessed", g_);
    b_->CreateCondBr(condition, yesBlock, noBlock);
    b_->SetInsertPoint(yesBlock);
    llvm::Value* a = yes();
    llvm::BasicBlock* yesEnd = b_->GetInsertBlock();  // yes() may have made blocks of its own
    b_->CreateBr(done);
    b_->SetInsertPoint(noBlock);
    llvm::Value* c = no();
    llvm::BasicBlock* noEnd = b_->GetInsertBlock();
    b_->CreateBr(done);
    b_->SetInsertPoint(done);
    if (!a || a->getType()->isVoidTy()) return nullptr;
    llvm::PHINode* phi = b_->CreatePHI(a->getType(), 2);
    phi->addIncoming(a, yesEnd);
    phi->addIncoming(c, noEnd);
    return phi;
  }

  // The loop position an instruction carries (stripDebugInfoKeepingLoopPositions), on what it
  // became: a timeout report names the loop a SIMD-group was still running.
  bool emitInstruction(llvm::Instruction& inst, llvm::Value* mask) {
    llvm::MDNode* loopPosition = inst.getMetadata(kLoopPositionKind);
    if (!emitVectorised(inst, mask)) return false;
    if (loopPosition)
      for (llvm::Instruction& made : *b_->GetInsertBlock())
        if (!made.getMetadata(kLoopPositionKind)) made.setMetadata(kLoopPositionKind, loopPosition);
    return true;
  }

  bool emitVectorised(llvm::Instruction& inst, llvm::Value* mask) {
    if (llvm::isa<llvm::AllocaInst>(inst)) return true;  // made at the entry
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst)) return emitCall(*call, mask);
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst); load && slotOf(load->getPointerOperand())) {
      llvm::AllocaInst* g = slotOfG_.at(slotOf(load->getPointerOperand()));
      values_[&inst] = b_->CreateLoad(g->getAllocatedType(), g);
      return true;
    }
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst); store && slotOf(store->getPointerOperand()))
      return storeSlot(*store, mask, /*guard=*/false);
    if (llvm::isa<llvm::AtomicRMWInst>(inst)) return perLane(inst, mask);
    bool varies = isVarying(&inst) || (llvm::isa<llvm::StoreInst>(inst) && operandVaries(inst));
    if (!varies) {
      cloneUniform(inst);
      return true;
    }
    llvm::Type* t = inst.getType();
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      llvm::Type* w = wide(t);
      if (!w) return fail("a lane-varying load of " + describe(*t));
      if (llvm::AllocaInst* own = load->isSimple() ? wholeOwnObject(load->getPointerOperand(), t) : nullptr) {
        // Inactive lanes' words are read too, and never used.
        values_[&inst] = b_->CreateAlignedLoad(w, own, elementAlign(load->getAlign(), elementOf(t), layout_));
        return true;
      }
      llvm::Type* e = elementOf(t);
      unsigned n = width(t);
      llvm::Value* pointers = componentPointers(vec(load->getPointerOperand()), e, n);
      llvm::Align align = elementAlign(load->getAlign(), e, layout_);
      llvm::Value* lanes = expand(mask, n);
      values_[&inst] = consecutively(
          pointers, e, [&](llvm::Value* first) { return b_->CreateMaskedLoad(w, first, align, lanes); },
          [&] { return b_->CreateMaskedGather(w, pointers, align, lanes); });
      return true;
    }
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      llvm::Type* vt = store->getValueOperand()->getType();
      if (!wide(vt)) return fail("a lane-varying store of " + describe(*vt));
      llvm::Type* e = elementOf(vt);
      unsigned n = width(vt);
      if (!isVarying(store->getPointerOperand()) && store->isSimple()) {
        // One address for every lane (`if (lane == 0) sums[sg] = s`): what the last active lane
        // writes stays, as the threads one by one (and a scatter, at many times the cost) leave it.
        // The block runs only when some lane is here, so the mask has a highest lane.
        llvm::Value* bits = b_->CreateBitCast(mask, i32());
        llvm::Value* last = b_->CreateSub(b_->getInt32(kLanes - 1),
                                          b_->CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, bits, b_->getFalse()));
        llvm::Value* value = vec(store->getValueOperand());
        llvm::Value* written;
        if (n == 1) {
          written = b_->CreateExtractElement(value, last);
        } else {
          written = llvm::PoisonValue::get(vt);
          for (unsigned c = 0; c < n; ++c)
            written = b_->CreateInsertElement(
                written, b_->CreateExtractElement(value, b_->CreateAdd(b_->CreateMul(last, b_->getInt32(n)), b_->getInt32(c))), c);
        }
        b_->CreateAlignedStore(written, scalar(store->getPointerOperand()), store->getAlign());
        return true;
      }
      llvm::Value* pointers = componentPointers(vec(store->getPointerOperand()), e, n);
      llvm::Value* value = vec(store->getValueOperand());
      llvm::Align align = elementAlign(store->getAlign(), e, layout_);
      llvm::Value* lanes = expand(mask, n);
      if (llvm::AllocaInst* own = store->isSimple() ? wholeOwnObject(store->getPointerOperand(), vt) : nullptr) {
        // Inactive lanes keep their value, rewritten: nothing else reaches this SIMD-group's
        // private objects while it runs. A whole-vector store, where a masked one would keep LLVM
        // from forwarding it to the whole-vector reads that follow (a SIMD-group function's copy of
        // its argument) and stall the load that reads it back.
        llvm::Value* old = b_->CreateAlignedLoad(value->getType(), own, align);
        b_->CreateAlignedStore(b_->CreateSelect(lanes, value, old), own, align);
        return true;
      }
      consecutively(
          pointers, e, [&](llvm::Value* first) { return b_->CreateMaskedStore(value, first, align, lanes); },
          [&] { return b_->CreateMaskedScatter(value, pointers, align, lanes); });
      return true;
    }
    llvm::Type* w = wide(t);
    if (!w) return fail("a lane-varying value of type " + describe(*t) + ": " + describe(inst));
    unsigned n = width(t);
    llvm::Value* result = nullptr;
    if (auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(&inst)) {
      llvm::Value* rhs = vec(bin->getOperand(1));
      switch (bin->getOpcode()) {
        case llvm::Instruction::UDiv:
        case llvm::Instruction::SDiv:
        case llvm::Instruction::URem:
        case llvm::Instruction::SRem:
          // Lanes that are not here may hold anything: not a zero to trap on.
          rhs = b_->CreateSelect(expand(mask, n), rhs, llvm::ConstantInt::get(w, 1));
          break;
        default: break;
      }
      result = b_->CreateBinOp(bin->getOpcode(), vec(bin->getOperand(0)), rhs);
    } else if (auto* un = llvm::dyn_cast<llvm::UnaryOperator>(&inst)) {
      result = b_->CreateUnOp(un->getOpcode(), vec(un->getOperand(0)));
    } else if (auto* cast = llvm::dyn_cast<llvm::CastInst>(&inst)) {
      result = b_->CreateCast(cast->getOpcode(), vec(cast->getOperand(0)), w);
    } else if (auto* cmp = llvm::dyn_cast<llvm::CmpInst>(&inst)) {
      result = b_->CreateCmp(cmp->getPredicate(), vec(cmp->getOperand(0)), vec(cmp->getOperand(1)));
    } else if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(&inst)) {
      llvm::Value* c = sel->getCondition();
      llvm::Value* cw = !isVarying(c) ? scalar(c) : c->getType()->isVectorTy() ? vec(c) : expand(vec(c), n);
      result = b_->CreateSelect(cw, vec(sel->getTrueValue()), vec(sel->getFalseValue()));
    } else if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
      if (gep->getPointerOperandType()->isVectorTy()) return fail("a vector of pointers in the kernel");
      llvm::Value* base = isVarying(gep->getPointerOperand()) ? vec(gep->getPointerOperand()) : scalar(gep->getPointerOperand());
      std::vector<llvm::Value*> indices;
      for (llvm::Use& i : gep->indices()) indices.push_back(isVarying(i.get()) ? vec(i.get()) : scalar(i.get()));
      result = b_->CreateGEP(gep->getSourceElementType(), base, indices, "", gep->isInBounds());
    } else if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(&inst);
               extract && isLaneVector(extract->getVectorOperand()) && isLaneIndex(extract->getIndexOperand())) {
      // Lane l takes element l of 32 values the lanes share (a prefix sum's results, simd.h):
      // the vector as it is.
      result = scalar(extract->getVectorOperand());
    } else if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(&inst)) {
      unsigned m = width(extract->getVectorOperandType());
      llvm::Value* v = vec(extract->getVectorOperand());
      auto component = [&](unsigned c) {
        std::vector<int> mask;
        for (unsigned l = 0; l < kLanes; ++l) mask.push_back(int(l * m + c));
        return b_->CreateShuffleVector(v, mask);
      };
      if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(extract->getIndexOperand())) {
        result = k->getZExtValue() < m ? component(unsigned(k->getZExtValue())) : llvm::PoisonValue::get(w);
      } else {
        llvm::Value* index = vec(extract->getIndexOperand());
        result = llvm::PoisonValue::get(w);
        for (unsigned c = 0; c < m; ++c)
          result = b_->CreateSelect(b_->CreateICmpEQ(index, llvm::ConstantInt::get(index->getType(), c)), component(c), result);
      }
    } else if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(&inst)) {
      llvm::Value* v = vec(insert->getOperand(0));
      llvm::Value* element = expand(vec(insert->getOperand(1)), n);
      std::vector<llvm::Constant*> componentIndex;
      for (unsigned l = 0; l < kLanes; ++l)
        for (unsigned c = 0; c < n; ++c) componentIndex.push_back(llvm::ConstantInt::get(i32(), c));
      llvm::Value* index = insert->getOperand(2);
      llvm::Value* at = isVarying(index) ? expand(b_->CreateZExtOrTrunc(vec(index), llvm::FixedVectorType::get(i32(), kLanes)), n)
                                         : b_->CreateVectorSplat(kLanes * n, b_->CreateZExtOrTrunc(scalar(index), i32()));
      result = b_->CreateSelect(b_->CreateICmpEQ(llvm::ConstantVector::get(componentIndex), at), element, v);
    } else if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(&inst)) {
      unsigned m = width(shuffle->getOperand(0)->getType());
      std::vector<int> mask;
      for (unsigned l = 0; l < kLanes; ++l)
        for (int s : shuffle->getShuffleMask())
          mask.push_back(s < 0 ? -1 : unsigned(s) < m ? int(l * m + s) : int(kLanes * m + l * m + (s - m)));
      result = b_->CreateShuffleVector(vec(shuffle->getOperand(0)), vec(shuffle->getOperand(1)), mask);
    } else if (llvm::isa<llvm::FreezeInst>(inst)) {
      result = b_->CreateFreeze(vec(inst.getOperand(0)));
    } else {
      return fail("a lane-varying instruction it does not handle: " + describe(inst));
    }
    if (auto* r = llvm::dyn_cast<llvm::Instruction>(result)) r->copyIRFlags(&inst);
    values_[&inst] = result;
    return true;
  }

  bool emitCall(llvm::CallBase& call, llvm::Value* mask) {
    llvm::Function* callee = call.getCalledFunction();
    if (!callee) return fail("an indirect call");
    llvm::StringRef name = callee->getName();
    if (name == kLaneIndex) {
      values_[&call] = lanes32_;
      return true;
    }
    if (name == hook::kSimdExchange) return emitExchange(call, mask);
    if (name == hook::kSimdgroupBarrier) return true;  // the lanes run in step
    if (name == hook::kThreadgroupBarrier || name == hook::kThreadgroupArena || name == hook::kAccessFilter) {
      cloneUniform(call);
      return true;
    }
    if (name == "__mslsim_simd_inactive_read") return perLane(call, mask);
    if (name == hook::kAccess) return emitLanesHook(call, mask, hook::kLanesAccess);
    if (name == hook::kPrivateOverrun) return emitLanesHook(call, mask, hook::kLanesPrivateOverrun);
    if (name == hook::kSimdgroupMma) return emitSimdgroupMma(call, mask);
    if (name.startswith("__mslsim_")) return fail("a call of " + name.str());
    if (auto id = callee->getIntrinsicID()) {
      switch (id) {
        case llvm::Intrinsic::lifetime_start:
        case llvm::Intrinsic::lifetime_end:
        case llvm::Intrinsic::assume:
        case llvm::Intrinsic::experimental_noalias_scope_decl:
        case llvm::Intrinsic::dbg_declare:
        case llvm::Intrinsic::dbg_value:
        case llvm::Intrinsic::dbg_label: return true;
        default: break;
      }
      bool varies = isVarying(&call) || operandVaries(call);
      if (!varies) {
        cloneUniform(call);
        return true;
      }
      if (llvm::isTriviallyVectorizable(id)) {
        std::vector<llvm::Value*> args;
        std::set<llvm::Type*> scalarTypes, vectorTypes{call.getType()};
        for (unsigned i = 0; i < call.arg_size(); ++i) {
          llvm::Value* a = call.getArgOperand(i);
          if (llvm::isVectorIntrinsicWithScalarOpAtArg(id, i)) {
            if (isVarying(a)) return fail("a lane-varying operand the intrinsic takes as a scalar: " + describe(call));
            args.push_back(scalar(a));
            scalarTypes.insert(a->getType());
          } else {
            args.push_back(vec(a));
            vectorTypes.insert(a->getType());
          }
        }
        // The scalar declaration's overloaded types, widened but where only a scalar operand has it.
        llvm::SmallVector<llvm::Type*, 4> types;
        if (!llvm::Intrinsic::getIntrinsicSignature(callee, types)) return fail("an intrinsic it cannot read: " + name.str());
        for (llvm::Type*& t : types)
          if (vectorTypes.count(t) || !scalarTypes.count(t)) {
            llvm::Type* w = wide(t);
            if (!w) return fail("a lane-varying value of type " + describe(*t));
            t = w;
          }
        llvm::Function* decl = llvm::Intrinsic::getDeclaration(&module_, id, types);
        llvm::CallInst* result = b_->CreateCall(decl, args);
        result->copyIRFlags(&call);
        values_[&call] = result;
        return true;
      }
      if (id == llvm::Intrinsic::memcpy || id == llvm::Intrinsic::memmove || id == llvm::Intrinsic::memset)
        return perLane(call, mask);
      return fail("an intrinsic it does not vectorise: " + name.str());
    }
    bool varies = isVarying(&call) || operandVaries(call);
    if (!varies) {
      cloneUniform(call);
      return true;
    }
    if (!callee->isDeclaration()) return fail("a call that was not inlined: " + name.str());
    // libm functions with a libmvec variant: that variant on each run of its lanes.
    const auto& mathNames = vectorisableMathFunctions();
    if (std::find(mathNames.begin(), mathNames.end(), name.str()) != mathNames.end() && call.getType()->isFloatTy()) {
      auto* part = llvm::FixedVectorType::get(call.getType(), math_.lanes);
      std::vector<llvm::Type*> params(call.arg_size(), part);
      llvm::FunctionCallee variant = module_.getOrInsertFunction(math_.name(name.str()), llvm::FunctionType::get(part, params, false));
      if (auto* f = llvm::dyn_cast<llvm::Function>(variant.getCallee())) {
        f->setDoesNotAccessMemory();
        f->setDoesNotThrow();
      }
      std::vector<llvm::Value*> whole;
      for (unsigned i = 0; i < call.arg_size(); ++i) whole.push_back(vec(call.getArgOperand(i)));
      llvm::Value* result = llvm::PoisonValue::get(wide(call.getType()));
      for (unsigned first = 0; first < kLanes; first += math_.lanes) {
        std::vector<int> take, put;
        for (unsigned l = 0; l < math_.lanes; ++l) take.push_back(int(first + l));
        std::vector<llvm::Value*> args;
        for (llvm::Value* a : whole) args.push_back(b_->CreateShuffleVector(a, take));
        llvm::Value* r = b_->CreateCall(variant, args);
        // Widen the part to 32 lanes, then blend it in.
        std::vector<int> grow;
        for (unsigned l = 0; l < kLanes; ++l) grow.push_back(l >= first && l < first + math_.lanes ? int(l - first) : -1);
        llvm::Value* grown = b_->CreateShuffleVector(r, grow);
        std::vector<int> blend;
        for (unsigned l = 0; l < kLanes; ++l) blend.push_back(l >= first && l < first + math_.lanes ? int(kLanes + l) : int(l));
        result = b_->CreateShuffleVector(result, grown, blend);
      }
      values_[&call] = result;
      return true;
    }
    return perLane(call, mask);  // once per active lane, in lane order
  }

  // A check's slow-path hook (hook::kAccess or kPrivateOverrun: address, size, site, pointer) as
  // one call for the lanes of `mask` (hook::kLanesAccess, kLanesPrivateOverrun): the lanes'
  // addresses and pointers in arrays, the lanes as a bit mask; kLanesAccess answers with the mask
  // of lanes whose access may go ahead. One call where a loop over the lanes would put four blocks
  // per access into a function the register allocator then takes seconds over.
  llvm::AllocaInst* hookAddresses_ = nullptr;
  llvm::AllocaInst* hookPointers_ = nullptr;
  bool emitLanesHook(llvm::CallBase& call, llvm::Value* mask, const char* lanesHook) {
    llvm::Value* size = call.getArgOperand(1);
    llvm::Value* site = call.getArgOperand(2);
    if (isVarying(size) || isVarying(site)) return fail("a check of a lane-varying size");
    // Two arrays for every call site of the function (each is read only during its call).
    auto lanesArray = [&](llvm::Value* v, llvm::AllocaInst*& slot) -> llvm::Value* {
      if (llvm::isa<llvm::ConstantPointerNull>(v)) return v;
      if (!slot)
        slot = llvm::IRBuilder<>(&*g_->getEntryBlock().getFirstInsertionPt()).CreateAlloca(llvm::ArrayType::get(ptr(), kLanes));
      // The array's alignment, not the vector's (a <32 x ptr> would claim 256 bytes).
      b_->CreateAlignedStore(isVarying(v) ? vec(v) : b_->CreateVectorSplat(kLanes, scalar(v)), slot, slot->getAlign());
      return slot;
    };
    llvm::Value* addresses = lanesArray(call.getArgOperand(0), hookAddresses_);
    llvm::Value* pointers = lanesArray(call.getArgOperand(3), hookPointers_);
    auto* type = llvm::FunctionType::get(call.getType()->isVoidTy() ? llvm::Type::getVoidTy(ctx_) : i32(),
                                         {ptr(), i64(), i32(), ptr(), i32()}, false);
    llvm::CallInst* r = b_->CreateCall(module_.getOrInsertFunction(lanesHook, type),
                                       {addresses, scalar(size), scalar(site), pointers, b_->CreateBitCast(mask, i32())});
    if (call.getType()->isVoidTy()) return true;
    if (isVarying(&call))  // lane l's answer: bit l
      values_[&call] = b_->CreateZExt(b_->CreateBitCast(r, maskType()), llvm::FixedVectorType::get(i32(), kLanes));
    else  // one access for every lane: one answer
      values_[&call] = b_->CreateZExt(b_->CreateICmpNE(r, b_->getInt32(0)), i32());
    return true;
  }

  // A simdgroup_matrix product's arithmetic (hook::kSimdgroupMma, whose lane operand is the calling
  // lane): one call for the lanes of `mask`, each lane's result read from an array of the
  // function's.
  llvm::AllocaInst* mmaResults_ = nullptr;
  bool emitSimdgroupMma(llvm::CallBase& call, llvm::Value* mask) {
    llvm::Value* operands = call.getArgOperand(0);
    if (isVarying(operands)) return fail("a simdgroup_matrix product of per-lane operands");
    if (!mmaResults_)
      mmaResults_ = llvm::IRBuilder<>(&*g_->getEntryBlock().getFirstInsertionPt()).CreateAlloca(llvm::ArrayType::get(i64(), kLanes));
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr(), i32(), ptr()}, false);
    b_->CreateCall(module_.getOrInsertFunction(hook::kLanesSimdgroupMma, type),
                   {scalar(operands), b_->CreateBitCast(mask, i32()), mmaResults_});
    values_[&call] = b_->CreateAlignedLoad(llvm::FixedVectorType::get(i64(), kLanes), mmaResults_, mmaResults_->getAlign());
    return true;
  }

  // A SIMD-group function's exchange: the active lanes' values into the buffer the lanes share,
  // lane j's at j * size; the result is the mask of active lanes.
  bool emitExchange(llvm::CallBase& call, llvm::Value* mask) {
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(call.getArgOperand(2));
    if (!size) return fail("a SIMD-group exchange of a varying size");
    uint64_t bytes = size->getZExtValue();
    if (bytes) {
      llvm::Value* buffer = call.getArgOperand(1);
      if (isVarying(buffer)) return fail("a SIMD-group exchange into per-lane memory");
      llvm::Value* base = scalar(buffer);
      llvm::Value* from = vec(call.getArgOperand(0));
      unsigned chunk = bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
      llvm::Type* t = b_->getIntNTy(8 * chunk);
      llvm::Type* w = llvm::FixedVectorType::get(t, kLanes);
      llvm::Value* laneOffsets = b_->CreateMul(lanes64_, b_->CreateVectorSplat(kLanes, b_->getInt64(bytes)));
      // A value of the lanes' own (the standard library passes a local copy): every lane's slot
      // exists, so it is read and, side by side in the buffer, written for all lanes at once. An
      // inactive lane's word is never read back (__lanes::at and active() test the mask), and
      // whole-vector accesses let LLVM forward the lanes' values to the reads of single lanes
      // that follow (`simd_sum`'s pairs) instead of going through memory.
      const bool ownValue = llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(call.getArgOperand(0)));
      // The copy is the lanes' own objects side by side: read at once, without testing addresses.
      llvm::AllocaInst* own = nullptr;
      if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(call.getArgOperand(0)))
        if (wholeOwnObject(a, a->getAllocatedType()) && layout_.getTypeStoreSize(a->getAllocatedType()) == bytes &&
            bytes == chunk)
          own = privateCopies_.at(a);
      // A larger object of the lanes' own (a struct, a float4: the simdgroup_matrix operands): the
      // lanes' copies lie as the buffer wants them, lane j's at j * size, so the buffer is a copy
      // of them, inactive lanes' words included (never read back), rather than a gather and a
      // scatter per word.
      if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(call.getArgOperand(0)); a && !own && privateCopies_.count(a) &&
                                                                                a->isStaticAlloca() &&
                                                                                llvm::cast<llvm::ConstantInt>(a->getArraySize())->isOne() &&
                                                                                layout_.getTypeAllocSize(a->getAllocatedType()) == bytes) {
        llvm::AllocaInst* copies = privateCopies_.at(a);
        b_->CreateMemCpy(base, llvm::Align(chunk), copies, copies->getAlign(), kLanes * bytes);
        values_[&call] = b_->CreateBitCast(mask, i32());
        return true;
      }
      for (uint64_t at = 0; at < bytes; at += chunk) {
        if (own) {
          b_->CreateAlignedStore(b_->CreateAlignedLoad(w, own, llvm::Align(chunk)), base, llvm::Align(chunk));
          continue;
        }
        llvm::Value* sources = b_->CreateGEP(b_->getInt8Ty(), from, b_->getInt64(at));
        llvm::Value* values = consecutively(
            sources, t,
            [&](llvm::Value* first) -> llvm::Value* {
              if (ownValue && bytes == chunk) return b_->CreateAlignedLoad(w, first, llvm::Align(chunk));
              return b_->CreateMaskedLoad(w, first, llvm::Align(chunk), mask);
            },
            [&] { return b_->CreateMaskedGather(w, sources, llvm::Align(chunk), mask); });
        if (bytes == chunk) {  // the lanes' values side by side: one vector store
          if (ownValue)
            b_->CreateAlignedStore(values, base, llvm::Align(chunk));
          else
            b_->CreateMaskedStore(values, base, llvm::Align(chunk), mask);
          continue;
        }
        llvm::Value* targets =
            b_->CreateGEP(b_->getInt8Ty(), base, b_->CreateAdd(laneOffsets, b_->CreateVectorSplat(kLanes, b_->getInt64(at))));
        b_->CreateMaskedScatter(values, targets, llvm::Align(chunk), mask);
      }
    }
    values_[&call] = b_->CreateBitCast(mask, i32());
    return true;
  }
};

}  // namespace

llvm::Function* vectoriseSimdGroup(llvm::Function& entry, const KernelInfo& info, const std::string& name,
                                   const VectorMathVariant& math, std::string& whyNot) {
  return LaneVectoriser(entry, info, math, whyNot).run(name);
}

}  // namespace mslsim
