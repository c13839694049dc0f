// Single lanes of lane masks in memory, read and written as bits (see IrPasses.h,
// repairMaskElementAccesses).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <vector>

#include "IrPasses.h"

namespace mslsim {

namespace {

// `gep <N x i1>, ptr %mask, 0, %lane` (N a multiple of 8): the mask's address and the lane, or null.
llvm::GetElementPtrInst* laneOfMask(llvm::Value* pointer) {
  auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(pointer);
  if (!gep || gep->getNumIndices() != 2) return nullptr;
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(gep->getSourceElementType());
  if (!v || !v->getElementType()->isIntegerTy(1) || v->getNumElements() % 8 != 0) return nullptr;
  auto* first = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1));
  return first && first->isZero() ? gep : nullptr;
}

}  // namespace

void repairMaskElementAccesses(llvm::Module& module) {
  std::vector<llvm::Instruction*> accesses;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block) {
        if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&i); load && load->getType()->isIntegerTy(1) &&
                                                              laneOfMask(load->getPointerOperand()))
          accesses.push_back(load);
        if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
            store && store->getValueOperand()->getType()->isIntegerTy(1) && laneOfMask(store->getPointerOperand()))
          accesses.push_back(store);
      }
  for (llvm::Instruction* access : accesses) {
    llvm::IRBuilder<> b(access);
    llvm::GetElementPtrInst* gep = laneOfMask(llvm::getLoadStorePointerOperand(access));
    auto* maskType = llvm::cast<llvm::FixedVectorType>(gep->getSourceElementType());
    llvm::IntegerType* bits = b.getIntNTy(maskType->getNumElements());
    llvm::Value* mask = gep->getPointerOperand();
    llvm::Value* lane = b.CreateZExtOrTrunc(gep->getOperand(2), bits);
    bool isVolatile = llvm::isa<llvm::LoadInst>(access) ? llvm::cast<llvm::LoadInst>(access)->isVolatile()
                                                          : llvm::cast<llvm::StoreInst>(access)->isVolatile();
    llvm::Value* word = b.CreateAlignedLoad(bits, mask, llvm::Align(1), isVolatile);
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(access)) {
      load->replaceAllUsesWith(b.CreateTrunc(b.CreateLShr(word, lane), b.getInt1Ty()));
    } else {
      llvm::Value* bit = b.CreateShl(llvm::ConstantInt::get(bits, 1), lane);
      llvm::Value* value = b.CreateShl(b.CreateZExt(llvm::cast<llvm::StoreInst>(access)->getValueOperand(), bits), lane);
      b.CreateAlignedStore(b.CreateOr(b.CreateAnd(word, b.CreateNot(bit)), value), mask, llvm::Align(1), isVolatile);
    }
    access->eraseFromParent();
  }
}

}  // namespace mslsim
