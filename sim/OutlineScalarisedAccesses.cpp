// outlineScalarisedAccesses: masked memory intrinsics the target cannot execute as instructions
// are called out of line, one copy per kind, type and alignment.
//
// When it runs: last before code generation, on every build (IrPasses.h). It needs the target
// machine, whose TargetTransformInfo says which masked accesses are instructions.
//
// Why: the vector lanes make every lane-varying access a masked load, store, gather or scatter of
// 32 lanes. A target without the instruction (x86 without AVX-512 has no scatter at all, treats
// gathers as slow on AMD and has no masked access for bytes and shorts) scalarises each call into
// 32 conditional blocks. Inline, a kernel with a hundred such accesses (a switch over float4
// cases) became ten thousand blocks, and code generation took 15 s where the same kernel's other
// paths took 0.4. Out of line each kind is scalarised once; a call costs little beside 32
// conditional scalar accesses.
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <string>
#include <vector>

#include "IrPasses.h"

namespace mslsim {

namespace {

// The position of the alignment operand of each masked memory intrinsic; -1 for other calls.
int alignmentOperand(llvm::Intrinsic::ID id) {
  switch (id) {
    case llvm::Intrinsic::masked_load:
    case llvm::Intrinsic::masked_gather: return 1;
    case llvm::Intrinsic::masked_store:
    case llvm::Intrinsic::masked_scatter: return 2;
    default: return -1;
  }
}

// Whether code generation would scalarise the call (as ScalarizeMaskedMemIntrin decides).
bool scalarised(llvm::IntrinsicInst& call, const llvm::TargetTransformInfo& tti) {
  auto align = llvm::cast<llvm::ConstantInt>(call.getArgOperand(unsigned(alignmentOperand(call.getIntrinsicID()))))
                   ->getAlignValue();
  switch (call.getIntrinsicID()) {
    case llvm::Intrinsic::masked_load: return !tti.isLegalMaskedLoad(call.getType(), align);
    case llvm::Intrinsic::masked_store: return !tti.isLegalMaskedStore(call.getArgOperand(0)->getType(), align);
    case llvm::Intrinsic::masked_gather: {
      auto* type = llvm::cast<llvm::VectorType>(call.getType());
      return !tti.isLegalMaskedGather(type, align) || tti.forceScalarizeMaskedGather(type, align);
    }
    case llvm::Intrinsic::masked_scatter: {
      auto* type = llvm::cast<llvm::VectorType>(call.getArgOperand(0)->getType());
      return !tti.isLegalMaskedScatter(type, align) || tti.forceScalarizeMaskedScatter(type, align);
    }
    default: return false;
  }
}

// The out-of-line copy of `call`: its operands but the alignment as parameters, the intrinsic
// with that alignment as its body. Made with the attributes of `caller`'s target, whose vector
// registers pass the operands.
llvm::Function* outlinedCopy(llvm::IntrinsicInst& call, llvm::Function& caller) {
  llvm::Module& module = *caller.getParent();
  const int alignAt = alignmentOperand(call.getIntrinsicID());
  auto* alignment = llvm::cast<llvm::ConstantInt>(call.getArgOperand(unsigned(alignAt)));
  std::string name = "__mslsim_scalarised." + call.getCalledFunction()->getName().str() + ".a" +
                     std::to_string(alignment->getZExtValue());
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  std::vector<llvm::Type*> parameters;
  for (unsigned i = 0; i < call.arg_size(); ++i)
    if (int(i) != alignAt) parameters.push_back(call.getArgOperand(i)->getType());
  auto* type = llvm::FunctionType::get(call.getType(), parameters, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module);
  f->setCallingConv(llvm::CallingConv::Fast);
  for (const char* attribute : {"target-cpu", "target-features", "tune-cpu"})
    if (caller.hasFnAttribute(attribute)) f->addFnAttr(caller.getFnAttribute(attribute));
  f->addFnAttr(llvm::Attribute::NoInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "", f));
  std::vector<llvm::Value*> operands;
  auto parameter = f->arg_begin();
  for (unsigned i = 0; i < call.arg_size(); ++i) operands.push_back(int(i) == alignAt ? static_cast<llvm::Value*>(alignment) : &*parameter++);
  llvm::CallInst* body = b.CreateCall(call.getCalledFunction(), operands);
  if (type->getReturnType()->isVoidTy())
    b.CreateRetVoid();
  else
    b.CreateRet(body);
  return f;
}

}  // namespace

void outlineScalarisedAccesses(llvm::Module& module, llvm::TargetMachine& tm) {
  std::vector<llvm::Function*> functions;
  for (llvm::Function& f : module)
    if (!f.isDeclaration()) functions.push_back(&f);
  for (llvm::Function* f : functions) {
    const llvm::TargetTransformInfo tti = tm.getTargetTransformInfo(*f);
    std::vector<llvm::IntrinsicInst*> calls;
    for (llvm::BasicBlock& block : *f)
      for (llvm::Instruction& inst : block)
        if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
            call && alignmentOperand(call->getIntrinsicID()) >= 0 && scalarised(*call, tti))
          calls.push_back(call);
    for (llvm::IntrinsicInst* call : calls) {
      llvm::Function* copy = outlinedCopy(*call, *f);
      std::vector<llvm::Value*> operands;
      for (unsigned i = 0; i < call->arg_size(); ++i)
        if (int(i) != alignmentOperand(call->getIntrinsicID())) operands.push_back(call->getArgOperand(i));
      auto* replacement = llvm::CallInst::Create(copy, operands, "", call);
      replacement->setCallingConv(llvm::CallingConv::Fast);
      replacement->setDebugLoc(call->getDebugLoc());
      replacement->copyMetadata(*call);
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
}

}  // namespace mslsim
