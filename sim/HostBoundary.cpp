#include "HostBoundary.h"

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <set>

#include "Hooks.h"
#include "IrPasses.h"

namespace mslsim {

namespace {

// C99 math functions: the standard library's float functions lower to these (and to their double
// versions where MSL's precise variants compute in double), and LLVM's math intrinsics become
// calls to them when the target has no instruction.
const char* const kMathFunctions[] = {
    "acos",  "acosh", "asin",      "asinh",  "atan",      "atan2",   "atanh",  "cbrt",   "ceil",
    "copysign", "cos", "cosh",     "erf",    "erfc",      "exp",     "exp2",   "exp10",  "expm1",
    "fabs",  "fdim",  "floor",     "fma",    "fmax",      "fmin",    "fmod",   "frexp",  "hypot",
    "ilogb", "ldexp", "lgamma",    "log",    "log10",     "log1p",   "log2",   "logb",   "modf",
    "nearbyint", "nextafter", "pow", "remainder", "remquo", "rint",  "round",  "roundeven",
    "scalbn", "sin",  "sincos",    "sinh",   "sqrt",      "tan",     "tanh",   "tgamma", "trunc",
    "lrint", "lround", "llrint",   "llround",
};

// compiler-rt / libgcc helpers that code generation calls for operations x86-64 lacks: half and
// bfloat conversions, complex multiply and divide, 128-bit integer division, powi.
const char* const kCompilerSupport[] = {
    "__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__extendhfdf2", "__gnu_h2f_ieee",
    "__gnu_f2h_ieee", "__truncsfbf2", "__truncdfbf2", "__extendbfsf2", "__mulsc3", "__divsc3",
    "__muldc3", "__divdc3", "__divti3", "__udivti3", "__modti3", "__umodti3", "__powisf2",
    "__powidf2", "__fixsfti", "__fixunssfti", "__fixdfti", "__fixunsdfti", "__floattisf",
    "__floatuntisf", "__floattidf", "__floatuntidf", "__popcountdi2", "__popcountsi2",
    // Memory intrinsics lower to these: they touch only what the kernel could store to anyway.
    "memcpy", "memset", "memmove",
};

const std::set<std::string>& allowedNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s;
    for (const char* f : kMathFunctions) {
      s.insert(f);
      s.insert(std::string(f) + "f");
    }
    s.insert("sincospif");
    s.insert("sincospi");
    for (const char* f : kCompilerSupport) s.insert(f);
    for (const RuntimeSymbol& r : runtimeSymbols()) s.insert(r.name);
    return s;
  }();
  return names;
}

// glibc's libmvec names a vector variant _ZGV<isa><mask><lanes><parameters>_<scalar name>.
bool isVectorMathVariant(const std::string& name) {
  if (name.rfind("_ZGV", 0) != 0) return false;
  size_t underscore = name.find('_', 4);
  if (underscore == std::string::npos) return false;
  std::string scalar = name.substr(underscore + 1);
  return allowedNames().count(scalar) && scalar.rfind("__", 0) != 0 && scalar.rfind("mem", 0) != 0;
}

std::string spelling(llvm::StringRef name) { return llvm::demangle(name.str()); }

// "FILE:LINE:COL: error: MESSAGE" and the source line with a caret, as Clang reports errors.
// The first user position among the instructions that use `value` (directly or through constant
// expressions), for the message.
SourcePosition firstUse(const llvm::Value& value, const SourceIndex& sources) {
  std::vector<const llvm::User*> work(value.user_begin(), value.user_end());
  std::set<const llvm::User*> seen;
  while (!work.empty()) {
    const llvm::User* u = work.back();
    work.pop_back();
    if (!seen.insert(u).second) continue;
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(u)) {
      SourcePosition where = userPosition(inst->getDebugLoc().get(), sources);
      if (!where.file.empty()) return where;
    } else {
      work.insert(work.end(), u->user_begin(), u->user_end());
    }
  }
  return {};
}

// The allowed library functions that write through pointer arguments, and how many bytes each
// writes through each of them (frexp and remquo write an int; the others a value of their type).
struct PointerWrites {
  const char* name;
  unsigned bytes;
};
const PointerWrites kPointerWriters[] = {
    {"frexpf", 4}, {"frexp", 4},   {"remquof", 4},   {"remquo", 4},   {"modff", 4},     {"modf", 8},
    {"sincosf", 4}, {"sincos", 8}, {"sincospif", 4}, {"sincospi", 8},
};

// Memory functions and vector math variants: the front end emits neither (it makes memory
// intrinsics, whose accesses the checks see), so a call to one is to a declaration of the program's.
bool isUnwrittenByFrontEnd(llvm::StringRef name) {
  return name == "memcpy" || name == "memset" || name == "memmove" || name.startswith("_ZGV");
}

// Whether `pointer` is the address of a local variable with at least `bytes` bytes from it.
bool pointsIntoLocal(const llvm::Value* pointer, unsigned bytes, const llvm::DataLayout& layout) {
  llvm::APInt offset(layout.getIndexTypeSizeInBits(pointer->getType()), 0);
  const llvm::Value* base = pointer->stripAndAccumulateConstantOffsets(layout, offset, /*AllowNonInbounds=*/true);
  auto* local = llvm::dyn_cast<llvm::AllocaInst>(base);
  if (!local || offset.isNegative()) return false;
  std::optional<llvm::TypeSize> size = local->getAllocationSize(layout);
  return size && !size->isScalable() && offset.getZExtValue() + bytes <= size->getFixedValue();
}

const char* const kWhy = ": MSL kernels can call only functions defined in the program and the Metal standard library";

// The program's calls to library functions that write through pointers: see checkHostBoundary.
bool checkLibraryWrites(const llvm::Module& module, const SourceIndex& sources, std::string& error) {
  const llvm::DataLayout& layout = module.getDataLayout();
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration() || f.isIntrinsic()) continue;
    llvm::StringRef name = f.getName();
    const PointerWrites* writes = nullptr;
    for (const PointerWrites& w : kPointerWriters)
      if (name == w.name) writes = &w;
    if (!writes && !isUnwrittenByFrontEnd(name)) continue;
    for (const llvm::User* user : f.users()) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(user);
      if (!writes || !call || call->getCalledOperand() != &f) {
        error = locatedError(firstUse(f, sources), sources,
                             (writes ? "use of the address of '" : "call to '") + spelling(name) +
                                 "', which is declared but not defined in the program" + kWhy);
        return false;
      }
      for (const llvm::Use& argument : call->args())
        if (argument->getType()->isPointerTy() && !pointsIntoLocal(argument.get(), writes->bytes, layout)) {
          error = locatedError(userPosition(call->getDebugLoc().get(), sources), sources,
                               "'" + spelling(name) + "' would write through a pointer that is not the address of a " +
                                   "local variable of " + std::to_string(writes->bytes) +
                                   " bytes: the standard library's version takes a thread reference");
          return false;
        }
    }
  }
  return true;
}

}  // namespace

bool isAllowedHostSymbol(const std::string& name) {
  return allowedNames().count(name) != 0 || isVectorMathVariant(name);
}

bool checkHostBoundary(const llvm::Module& module, const SourceIndex& sources, bool fromFrontEnd, std::string& error) {
  if (fromFrontEnd && !checkLibraryWrites(module, sources, error)) return false;
  if (!module.getModuleInlineAsm().empty()) {
    error = "error: the program contains file-scope assembly, which MSL does not have";
    return false;
  }
  for (const char* list : {"llvm.global_ctors", "llvm.global_dtors"})
    if (const llvm::GlobalVariable* g = module.getNamedGlobal(list)) {
      error = "error: the program has a global constructor or destructor (" +
              std::string(list + 12) + "), which MSL does not allow: program-scope variables must be " +
              "initialised with constant expressions";
      (void)g;
      return false;
    }
  if (!module.ifunc_empty()) {
    error = "error: the program defines an ifunc ('" + module.ifuncs().begin()->getName().str() +
            "'), which MSL does not have";
    return false;
  }
  for (const llvm::Function& f : module) {
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& inst : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (call->isInlineAsm()) {
            error = locatedError(userPosition(inst.getDebugLoc().get(), sources), sources,
                            "inline assembly, which MSL does not have");
            return false;
          }
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty()) continue;
    std::string name = f.getName().str();
    if (isAllowedHostSymbol(name)) continue;
    error = locatedError(firstUse(f, sources), sources,
                    "call to '" + spelling(name) + "', which is declared but not defined in the program" + kWhy);
    return false;
  }
  for (const llvm::GlobalVariable& g : module.globals()) {
    if (g.isThreadLocal() && !g.use_empty()) {
      error = locatedError(firstUse(g, sources), sources,
                      "'" + spelling(g.getName()) +
                          "' is thread_local, which MSL does not have (thread-private data lives in the kernel's locals)");
      return false;
    }
    if (!g.isDeclaration() || g.use_empty() || isAllowedHostSymbol(g.getName().str())) continue;
    error = locatedError(firstUse(g, sources), sources,
                    "use of '" + spelling(g.getName()) + "', a variable declared but not defined in the program" +
                        kWhy + " and their own variables");
    return false;
  }
  return true;
}

void confineIndirectCalls(llvm::Module& module) {
  std::vector<llvm::Function*> targets;  // the functions whose address the program takes
  std::vector<llvm::CallBase*> calls;
  for (llvm::Function& f : module) {
    if (!f.isIntrinsic() && f.hasAddressTaken()) targets.push_back(&f);
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& inst : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (!call->isInlineAsm() && !llvm::isa<llvm::Function>(call->getCalledOperand()->stripPointerCasts()))
            calls.push_back(call);
  }
  for (llvm::CallBase* call : calls) {
    llvm::IRBuilder<> b(call);
    llvm::Value* callee = call->getCalledOperand();
    llvm::Value* confined = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(callee->getType()));
    for (llvm::Function* target : targets)
      confined = b.CreateSelect(b.CreateICmpEQ(callee, target), target, confined);
    call->setCalledOperand(confined);
  }
}

}  // namespace mslsim
