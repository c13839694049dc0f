#include "StdlibBoundary.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>

namespace mslsim {

namespace {

constexpr llvm::StringLiteral kHookPrefix = "__mslsim_";

// A hook: a C function or variable of the standard library's internal namespace of names.
bool isHook(const clang::NamedDecl* decl) {
  if (!decl || !decl->getIdentifier() || !decl->getName().startswith(kHookPrefix)) return false;
  if (auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl)) return fn->isExternC();
  if (auto* var = llvm::dyn_cast<clang::VarDecl>(decl)) return var->isExternC();
  return false;
}

class StdlibBoundaryCheck : public clang::ASTConsumer, public clang::RecursiveASTVisitor<StdlibBoundaryCheck> {
 public:
  StdlibBoundaryCheck(clang::CompilerInstance& ci, std::string headerRoot)
      : ci_(ci), headerRoot_(std::move(headerRoot)) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override { TraverseDecl(ctx.getTranslationUnitDecl()); }

  // Template patterns are walked, not their instantiations: a hook named in a template is an
  // UnresolvedLookupExpr or a DeclRefExpr of the pattern, at the same token.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl && decl->isFromASTFile()) return true;
    return clang::RecursiveASTVisitor<StdlibBoundaryCheck>::TraverseDecl(decl);
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (isHook(ref->getDecl()) && !inStdlib(ref->getLocation()))
      error(ref->getLocation(), "'" + ref->getDecl()->getName().str() +
                                    "' is internal to mslsim's Metal standard library; a program cannot use it");
    return true;
  }

  bool VisitOverloadExpr(clang::OverloadExpr* ref) {
    for (clang::NamedDecl* candidate : ref->decls())
      if (isHook(candidate->getUnderlyingDecl()) && !inStdlib(ref->getNameLoc())) {
        error(ref->getNameLoc(), "'" + candidate->getName().str() +
                                     "' is internal to mslsim's Metal standard library; a program cannot use it");
        break;
      }
    return true;
  }

  bool VisitNamedDecl(clang::NamedDecl* decl) {
    if (inStdlib(decl->getLocation())) return true;
    if (isHook(decl)) {
      error(decl->getLocation(), "'" + decl->getName().str() +
                                     "' is reserved to mslsim's Metal standard library; a program cannot declare it");
    } else if (auto* label = decl->getAttr<clang::AsmLabelAttr>()) {
      error(label->getLocation(), "asm label '" + label->getLabel().str() +
                                      "' renames a symbol, which MSL does not allow");
    } else if (auto* weakref = decl->getAttr<clang::WeakRefAttr>()) {
      error(weakref->getLocation(), "'weakref' refers to another symbol, which MSL does not allow");
    } else if (auto* alias = decl->getAttr<clang::AliasAttr>()) {
      error(alias->getLocation(), "'alias' makes a second name for a symbol, which MSL does not allow");
    }
    return true;
  }

 private:
  // Whether the token at `loc` was written in the standard library: by the file that holds its
  // spelling (which a #line directive cannot rename), or, for a token pasted by a macro, by the file
  // the macro was expanded in.
  bool inStdlib(clang::SourceLocation loc) const {
    const clang::SourceManager& sm = ci_.getSourceManager();
    clang::SourceLocation spelling = sm.getSpellingLoc(loc);
    clang::OptionalFileEntryRef file = sm.getFileEntryRefForID(sm.getFileID(spelling));
    if (!file) file = sm.getFileEntryRefForID(sm.getFileID(sm.getExpansionLoc(loc)));
    return file && file->getName().startswith(headerRoot_ + "/");
  }

  void error(clang::SourceLocation loc, const std::string& message) {
    auto& d = ci_.getDiagnostics();
    d.Report(loc, d.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << message;
  }

  clang::CompilerInstance& ci_;
  std::string headerRoot_;
};

}  // namespace

std::unique_ptr<clang::ASTConsumer> makeStdlibBoundaryCheck(clang::CompilerInstance& ci, std::string headerRoot) {
  return std::make_unique<StdlibBoundaryCheck>(ci, std::move(headerRoot));
}

}  // namespace mslsim
