#include "ConditionalArms.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/Type.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace mslsim {

namespace {

bool isBfloat(clang::QualType type) {
  const auto* record = type.getCanonicalType()->getAsCXXRecordDecl();
  if (!record || record->getName() != "bfloat") return false;
  const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(record->getDeclContext());
  return ns && ns->getName() == "metal";
}

bool isIntegerOrBool(clang::QualType type) {
  const auto* builtin = type.getCanonicalType()->getAs<clang::BuiltinType>();
  return builtin && builtin->isInteger();
}

clang::QualType argumentType(const clang::Diagnostic& info, unsigned i) {
  if (info.getNumArgs() <= i || info.getArgKind(i) != clang::DiagnosticsEngine::ak_qualtype) return {};
  return clang::QualType::getFromOpaquePtr(reinterpret_cast<void*>(info.getRawArg(i)));
}

}  // namespace

std::optional<ArmConversion> bfloatConditionalArm(const clang::Diagnostic& info, const clang::LangOptions& lang) {
  if (info.getID() != clang::diag::err_conditional_ambiguous || !info.hasSourceManager() || info.getNumRanges() < 2)
    return std::nullopt;
  clang::QualType types[2] = {argumentType(info, 0), argumentType(info, 1)};
  int integer = -1;  // which arm to convert
  for (int i = 0; i < 2; ++i)
    if (!types[i].isNull() && isIntegerOrBool(types[i]) && !types[1 - i].isNull() && isBfloat(types[1 - i]))
      integer = i;
  if (integer < 0) return std::nullopt;

  const clang::SourceManager& sm = info.getSourceManager();
  clang::CharSourceRange arms[2];
  for (int i = 0; i < 2; ++i) {
    arms[i] = clang::Lexer::makeFileCharRange(info.getRange(i), sm, lang);
    if (arms[i].isInvalid()) return std::nullopt;
  }
  clang::FileID file = sm.getFileID(arms[0].getBegin());
  if (sm.getFileID(arms[1].getBegin()) != file) return std::nullopt;
  clang::OptionalFileEntryRef entry = sm.getFileEntryRefForID(file);
  if (!entry) return std::nullopt;
  // The bfloat arm is repeated inside decltype: it must fit on the line and end there.
  llvm::StringRef other = clang::Lexer::getSourceText(arms[1 - integer], sm, lang);
  if (other.empty() || other.find_first_of("\n\r#") != llvm::StringRef::npos || other.contains("//") ||
      other.contains("/*"))
    return std::nullopt;
  ArmConversion conversion;
  conversion.file = entry->getName().str();
  conversion.begin = sm.getFileOffset(arms[integer].getBegin());
  conversion.end = sm.getFileOffset(arms[integer].getEnd());
  conversion.before = "static_cast<decltype(+(" + other.str() + "))>(";
  conversion.after = ")";
  return conversion;
}

}  // namespace mslsim
