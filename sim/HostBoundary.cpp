#include "HostBoundary.h"

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
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

const char* const kWhy = ": MSL kernels can call only functions defined in the program and the Metal standard library";

}  // namespace

bool isAllowedHostSymbol(const std::string& name) {
  return allowedNames().count(name) != 0 || isVectorMathVariant(name);
}

bool checkHostBoundary(const llvm::Module& module, const SourceIndex& sources, std::string& error) {
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

}  // namespace mslsim
