// fuseMatrixExchanges: in code that runs its threads on fibers (the quick tier), a
// simdgroup_matrix product's exchange and its arithmetic become one hook, which the simulator
// resolves once for the SIMD-group.
//
// When it runs: last in the quick tier's pipeline, after SROA (which makes the lanes buffer an
// alloca the two hooks visibly share), on entries that stay on fibers (IrPasses.h). Needs nothing
// else; a product it does not recognise keeps the two hooks, which compute the same bits.
//
// Why: the standard library multiplies simdgroup matrices as an exchange of each lane's operands
// (hook::kSimdExchange, 24 bytes a lane) followed by the lane's share of the arithmetic
// (hook::kSimdgroupMma, reading the exchanged operands). On fibers the simulator copies all 32
// lanes' operands into each lane's buffer and each lane computes its two elements on its own:
// 24 KiB of copies and 32 separate products per multiplication, a fifth of the quick-tier time of
// MLX's steel GEMM. Fused (hook::kSimdMmaExchange), the simulator multiplies the 8x8 matrices once
// when the SIMD-group's lanes have all arrived and hands each lane its two elements.
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <vector>

#include "Hooks.h"
#include "IrPasses.h"

namespace mslsim {

namespace {

llvm::CallInst* callOf(llvm::Instruction& inst, llvm::StringRef name) {
  auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
  llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == name ? call : nullptr;
}

}  // namespace

void fuseMatrixExchanges(llvm::Function& entry) {
  // Each lanes buffer (an alloca): the exchanges that fill it and the products that read it.
  std::map<llvm::Value*, std::vector<llvm::CallInst*>> exchanges, products;
  for (auto& bb : entry)
    for (auto& inst : bb) {
      if (llvm::CallInst* call = callOf(inst, hook::kSimdExchange))
        exchanges[llvm::getUnderlyingObject(call->getArgOperand(1))].push_back(call);
      else if (llvm::CallInst* call = callOf(inst, hook::kSimdgroupMma))
        products[llvm::getUnderlyingObject(call->getArgOperand(0))].push_back(call);
    }
  if (products.empty()) return;
  llvm::Module& module = *entry.getParent();
  llvm::LLVMContext& ctx = entry.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::getUnqual(ctx);
  llvm::FunctionCallee fused = module.getOrInsertFunction(
      hook::kSimdMmaExchange, llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, i32, i32}, false));
  llvm::DominatorTree dominators(entry);
  for (auto& [buffer, reads] : products) {
    // One exchange of the operands into a buffer of the function's own, read by products it
    // dominates (the standard library's __sgmm: after the exchange, when every lane took part).
    auto found = exchanges.find(buffer);
    if (!llvm::isa<llvm::AllocaInst>(buffer) || found == exchanges.end() || found->second.size() != 1) continue;
    llvm::CallInst* exchange = found->second.front();
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(exchange->getArgOperand(2));
    if (!size || size->getZExtValue() != kMatrixLaneOperandsBytes) continue;
    bool fits = true;
    for (llvm::CallInst* read : reads) fits &= dominators.dominates(exchange, read);
    if (!fits) continue;
    // The lane's result: written by the simulator when the SIMD-group's lanes have all arrived
    // (and, when some lanes are inactive, the buffer filled as before).
    llvm::IRBuilder<> first(&*entry.getEntryBlock().getFirstInsertionPt());
    llvm::AllocaInst* result = first.CreateAlloca(i64, nullptr, "simd.mma.result");
    llvm::IRBuilder<> b(exchange);
    llvm::CallInst* call = b.CreateCall(fused, {exchange->getArgOperand(0), exchange->getArgOperand(1), result,
                                                exchange->getArgOperand(3), exchange->getArgOperand(4),
                                                exchange->getArgOperand(5)});
    call->setDebugLoc(exchange->getDebugLoc());
    exchange->replaceAllUsesWith(call);
    exchange->eraseFromParent();
    for (llvm::CallInst* read : reads) {
      llvm::LoadInst* load = new llvm::LoadInst(i64, result, "simd.mma", read);
      read->replaceAllUsesWith(load);
      read->eraseFromParent();
    }
  }
}

}  // namespace mslsim
