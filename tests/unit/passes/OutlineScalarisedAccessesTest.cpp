// outlineScalarisedAccesses on small IR, for a target with AVX2 and without AVX-512 (the x86 most
// machines have): masked accesses it has no instruction for are called out of line, one copy per
// kind, type and alignment; the ones it has stay inline.
#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>

#include "IrPasses.h"
#include "SmallIr.h"

namespace {

std::unique_ptr<llvm::TargetMachine> avx2Machine() {
  llvm::InitializeNativeTarget();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget("x86_64-unknown-linux-gnu", error);
  if (!target) return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      "x86_64-unknown-linux-gnu", "znver2", "", llvm::TargetOptions(), std::nullopt));
}

// Two scatters and a gather of 32 floats, a masked load of 32 bytes and one of 32 floats.
constexpr const char* kLanes = R"(
define void @lanes(<32 x ptr> %p, <32 x ptr> %q, <32 x i1> %m, <32 x float> %v, ptr %base) {
  call void @llvm.masked.scatter.v32f32.v32p0(<32 x float> %v, <32 x ptr> %p, i32 4, <32 x i1> %m)
  %g = call <32 x float> @llvm.masked.gather.v32f32.v32p0(<32 x ptr> %q, i32 4, <32 x i1> %m, <32 x float> poison)
  call void @llvm.masked.scatter.v32f32.v32p0(<32 x float> %g, <32 x ptr> %q, i32 4, <32 x i1> %m)
  %b = call <32 x i8> @llvm.masked.load.v32i8.p0(ptr %base, i32 1, <32 x i1> %m, <32 x i8> poison)
  %f = call <32 x float> @llvm.masked.load.v32f32.p0(ptr %base, i32 4, <32 x i1> %m, <32 x float> poison)
  ret void
}
declare void @llvm.masked.scatter.v32f32.v32p0(<32 x float>, <32 x ptr>, i32, <32 x i1>)
declare <32 x float> @llvm.masked.gather.v32f32.v32p0(<32 x ptr>, i32, <32 x i1>, <32 x float>)
declare <32 x i8> @llvm.masked.load.v32i8.p0(ptr, i32, <32 x i1>, <32 x i8>)
declare <32 x float> @llvm.masked.load.v32f32.p0(ptr, i32, <32 x i1>, <32 x float>)
)";

using small_ir::callees;

TEST(OutlineScalarisedAccesses, CallsWhatTheTargetWouldScalariseOutOfLineOnceAKind) {
  auto machine = avx2Machine();
  ASSERT_TRUE(machine);
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(kLanes, diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  module->setDataLayout(machine->createDataLayout());

  mslsim::outlineScalarisedAccesses(*module, *machine);

  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  // AVX2 has masked moves of 32-bit elements (the float load stays), none of bytes, no scatter,
  // and gathers are slow on this CPU: those three are called, and the two scatters share a copy.
  EXPECT_EQ(callees(*module->getFunction("lanes")),
            (std::vector<std::string>{"__mslsim_scalarised.llvm.masked.scatter.v32f32.v32p0.a4",
                                      "__mslsim_scalarised.llvm.masked.gather.v32f32.v32p0.a4",
                                      "__mslsim_scalarised.llvm.masked.scatter.v32f32.v32p0.a4",
                                      "__mslsim_scalarised.llvm.masked.load.v32i8.p0.a1",
                                      "llvm.masked.load.v32f32.p0"}));
  // Each copy is the intrinsic with the call's alignment, kept out of line.
  llvm::Function* scatter = module->getFunction("__mslsim_scalarised.llvm.masked.scatter.v32f32.v32p0.a4");
  ASSERT_TRUE(scatter);
  EXPECT_TRUE(scatter->hasFnAttribute(llvm::Attribute::NoInline));
  EXPECT_TRUE(scatter->hasInternalLinkage());
  EXPECT_EQ(callees(*scatter), (std::vector<std::string>{"llvm.masked.scatter.v32f32.v32p0"}));
  auto* body = llvm::cast<llvm::CallInst>(&scatter->getEntryBlock().front());
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(body->getArgOperand(2))->getZExtValue(), 4u);
}

TEST(OutlineScalarisedAccesses, LeavesWhatTheTargetExecutesInline) {
  auto machine = avx2Machine();
  ASSERT_TRUE(machine);
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(R"(
define <8 x float> @f(ptr %base, <8 x i1> %m) {
  %f = call <8 x float> @llvm.masked.load.v8f32.p0(ptr %base, i32 4, <8 x i1> %m, <8 x float> poison)
  ret <8 x float> %f
}
declare <8 x float> @llvm.masked.load.v8f32.p0(ptr, i32, <8 x i1>, <8 x float>)
)", diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  module->setDataLayout(machine->createDataLayout());
  mslsim::outlineScalarisedAccesses(*module, *machine);
  EXPECT_EQ(callees(*module->getFunction("f")), (std::vector<std::string>{"llvm.masked.load.v8f32.p0"}));
  EXPECT_EQ(module->size(), 2u);  // f and the intrinsic's declaration: nothing made
}

}  // namespace
