// What the IR pass tests share: small modules parsed from text, and the calls a function makes.
#pragma once

#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

#include <memory>
#include <string>
#include <vector>

namespace small_ir {

// The module in `text`, or null with a test failure giving the parser's message.
inline std::unique_ptr<llvm::Module> parse(const char* text, llvm::LLVMContext& context) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(text, diagnostic, context);
  if (!module) ADD_FAILURE() << diagnostic.getMessage().str();
  return module;
}

// The callee names of `f`'s calls, in order.
inline std::vector<std::string> callees(llvm::Function& f) {
  std::vector<std::string> names;
  for (auto& block : f)
    for (auto& inst : block)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) names.push_back(call->getCalledFunction()->getName().str());
  return names;
}

}  // namespace small_ir
