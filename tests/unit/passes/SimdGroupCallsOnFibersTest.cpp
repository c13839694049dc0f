// The passes that prepare an entry whose threads run on fibers for its SIMD-group calls, on small
// IR: insertSimdLoopPositions (each call first says which loops it is in and how far round) and
// fuseMatrixExchanges (a simdgroup_matrix product's exchange and arithmetic as one hook).
#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/SourceMgr.h>

#include <memory>
#include <string>
#include <vector>

#include "IrPasses.h"
#include "SmallIr.h"

namespace {

using small_ir::callees;
using small_ir::parse;

// A simdgroup_matrix product as the standard library's __sgmm leaves it after SROA: the operands
// exchanged into the lanes buffer, the product read from it when every lane took part.
constexpr const char* kProduct = R"(
@file = private constant [2 x i8] c"k\00"
define i64 @entry(ptr %operands) {
  %lanes = alloca [32 x [6 x float]], align 4
  %mask = call i32 @__mslsim_simd_exchange(ptr %operands, ptr %lanes, i32 24, ptr @file, i32 7, i32 3)
  %lane = call i32 @__mslsim_simd_lane()
  %all = icmp eq i32 %mask, -1
  br i1 %all, label %whole, label %partial
whole:
  %r = call i64 @__mslsim_simdgroup_mma(ptr %lanes, i32 %lane)
  ret i64 %r
partial:
  %first = load i64, ptr %lanes
  ret i64 %first
}
declare i32 @__mslsim_simd_exchange(ptr, ptr, i32, ptr, i32, i32)
declare i32 @__mslsim_simd_lane()
declare i64 @__mslsim_simdgroup_mma(ptr, i32)
)";

TEST(FuseMatrixExchanges, AProductsExchangeAndArithmeticBecomeOneHookWritingTheLanesResult) {
  llvm::LLVMContext context;
  auto module = parse(kProduct, context);
  ASSERT_TRUE(module);
  llvm::Function& entry = *module->getFunction("entry");
  mslsim::fuseMatrixExchanges(entry);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  EXPECT_EQ(callees(entry), (std::vector<std::string>{"__mslsim_simd_mma_exchange", "__mslsim_simd_lane"}));
  auto* fused = llvm::cast<llvm::CallInst>(&*std::next(entry.getEntryBlock().begin(), 2));
  ASSERT_EQ(fused->getCalledFunction()->getName(), "__mslsim_simd_mma_exchange");
  // Operands, the lanes buffer (still filled when some lanes are inactive), the result's slot,
  // and the call site.
  EXPECT_EQ(fused->getArgOperand(0), entry.getArg(0));
  EXPECT_EQ(fused->getArgOperand(1)->getName(), "lanes");
  auto* slot = llvm::dyn_cast<llvm::AllocaInst>(fused->getArgOperand(2));
  ASSERT_TRUE(slot);
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(fused->getArgOperand(4))->getZExtValue(), 7u);
  // The product's value is the slot's.
  auto* ret = llvm::cast<llvm::ReturnInst>(std::next(entry.begin())->getTerminator());
  auto* load = llvm::dyn_cast<llvm::LoadInst>(ret->getReturnValue());
  ASSERT_TRUE(load);
  EXPECT_EQ(load->getPointerOperand(), slot);
}

TEST(FuseMatrixExchanges, LeavesExchangesOfOtherSizesAndProductsItCannotPlace) {
  llvm::LLVMContext context;
  // A 16-byte exchange is not a product's; a product of a buffer two exchanges fill is not
  // known to read the one before it.
  std::string text = kProduct;
  for (auto [from, to] : {std::pair<std::string, std::string>{"i32 24", "i32 16"}}) text.replace(text.find(from), from.size(), to);
  auto module = parse(text.c_str(), context);
  ASSERT_TRUE(module);
  mslsim::fuseMatrixExchanges(*module->getFunction("entry"));
  EXPECT_EQ(callees(*module->getFunction("entry")),
            (std::vector<std::string>{"__mslsim_simd_exchange", "__mslsim_simd_lane", "__mslsim_simdgroup_mma"}));

  auto twice = parse(R"(
define i64 @entry(ptr %a, ptr %b) {
  %lanes = alloca [32 x [6 x float]], align 4
  %m1 = call i32 @__mslsim_simd_exchange(ptr %a, ptr %lanes, i32 24, ptr null, i32 1, i32 1)
  %m2 = call i32 @__mslsim_simd_exchange(ptr %b, ptr %lanes, i32 24, ptr null, i32 2, i32 1)
  %r = call i64 @__mslsim_simdgroup_mma(ptr %lanes, i32 0)
  ret i64 %r
}
declare i32 @__mslsim_simd_exchange(ptr, ptr, i32, ptr, i32, i32)
declare i64 @__mslsim_simdgroup_mma(ptr, i32)
)", context);
  ASSERT_TRUE(twice);
  mslsim::fuseMatrixExchanges(*twice->getFunction("entry"));
  EXPECT_EQ(callees(*twice->getFunction("entry")),
            (std::vector<std::string>{"__mslsim_simd_exchange", "__mslsim_simd_exchange", "__mslsim_simdgroup_mma"}));
}

// A SIMD-group call in a loop nested in another, and one after both loops.
constexpr const char* kNested = R"(
define void @entry(ptr %v, ptr %lanes, i32 %n) {
start:
  br label %outer
outer:
  %i = phi i32 [ 0, %start ], [ %i1, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner ]
  %m = call i32 @__mslsim_simd_exchange(ptr %v, ptr %lanes, i32 4, ptr null, i32 3, i32 1)
  %j1 = add i32 %j, 1
  %more = icmp ult i32 %j1, %n
  br i1 %more, label %inner, label %outer.latch
outer.latch:
  %i1 = add i32 %i, 1
  %again = icmp ult i32 %i1, %n
  br i1 %again, label %outer, label %done
done:
  call void @__mslsim_simdgroup_barrier(i32 0, ptr null, i32 9, i32 1)
  ret void
}
declare i32 @__mslsim_simd_exchange(ptr, ptr, i32, ptr, i32, i32)
declare void @__mslsim_simdgroup_barrier(i32, ptr, i32, i32)
)";

TEST(SimdLoopPositions, EachCallFirstGivesTheLoopsAroundItAndTheirIterationCountsOutermostFirst) {
  llvm::LLVMContext context;
  auto module = parse(kNested, context);
  ASSERT_TRUE(module);
  llvm::Function& entry = *module->getFunction("entry");
  mslsim::insertSimdLoopPositions(entry);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  // Nothing runs on each iteration but the kernel's own arithmetic: one call before each
  // SIMD-group call.
  EXPECT_EQ(callees(entry), (std::vector<std::string>{"__mslsim_simd_loop_position", "__mslsim_simd_exchange",
                                                      "__mslsim_simd_loop_position", "__mslsim_simdgroup_barrier"}));
  std::vector<llvm::CallInst*> positions;
  for (auto& block : entry)
    for (auto& inst : block)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst); call && call->getCalledFunction()->getName() == "__mslsim_simd_loop_position")
        positions.push_back(call);
  ASSERT_EQ(positions.size(), 2u);
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(positions[0]->getArgOperand(1))->getZExtValue(), 2u);  // two loops
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(positions[1]->getArgOperand(1))->getZExtValue(), 0u);  // none
  // Before the exchange: {outer id, outer count, inner id, inner count}, the counts phis that
  // start at 0 on entering their loop and go up by one at its back edge.
  std::vector<llvm::Value*> stored(4, nullptr);
  for (llvm::Instruction* i = positions[0]->getPrevNode(); i && llvm::isa<llvm::StoreInst, llvm::GetElementPtrInst>(i); i = i->getPrevNode())
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(i)) {
      auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(store->getPointerOperand());
      unsigned index = gep ? unsigned(llvm::cast<llvm::ConstantInt>(gep->getOperand(1))->getZExtValue()) : 0;
      stored[index] = store->getValueOperand();
    }
  ASSERT_TRUE(stored[0] && stored[1] && stored[2] && stored[3]);
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(stored[0])->getZExtValue(), 0u);
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(stored[2])->getZExtValue(), 1u);
  for (auto [count, header] : {std::pair{stored[1], "outer"}, std::pair{stored[3], "inner"}}) {
    auto* phi = llvm::dyn_cast<llvm::PHINode>(count);
    ASSERT_TRUE(phi);
    EXPECT_EQ(phi->getParent()->getName(), header);
    for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
      llvm::Value* in = phi->getIncomingValue(k);
      if (auto* zero = llvm::dyn_cast<llvm::ConstantInt>(in)) {
        EXPECT_EQ(zero->getZExtValue(), 0u);
      } else {
        auto* next = llvm::dyn_cast<llvm::BinaryOperator>(in);
        ASSERT_TRUE(next);
        EXPECT_EQ(next->getOperand(0), phi);
        EXPECT_EQ(llvm::cast<llvm::ConstantInt>(next->getOperand(1))->getZExtValue(), 1u);
      }
    }
  }
}

}  // namespace
