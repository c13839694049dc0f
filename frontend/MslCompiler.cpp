// The Clang side of the front end. Everything that includes Clang headers lives in this one file
// (each such translation unit costs ~20 s to compile).
//
// Pipeline: a virtual file system that serves our embedded metal_stdlib headers and rewrites every
// user file with SourceRewriter -> Clang in C++17 mode with the prelude force-included -> attribute
// plugins (msl_*) that annotate declarations and turn `threadgroup` locals into function statics ->
// KernelCollector, which describes each kernel and synthesises its trampoline -> Clang codegen with
// LLVM passes disabled (the simulator lowers threadgroup memory before optimising).

#include "MslCompiler.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ASTMutationListener.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/SourceManagerInternals.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Lex/HeaderSearchOptions.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Serialization/ASTReader.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/ModuleFile.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <clang/Sema/ParsedAttr.h>
#include <clang/Sema/Sema.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/ADT/StringExtras.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <list>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "ConditionalArms.h"
#include "EmbeddedHeaders.h"
#include "KernelSelection.h"
#include "SourcePrefix.h"
#include "SourceRewriter.h"
#include "StdlibBoundary.h"

namespace mslsim {

CompiledProgram::CompiledProgram() = default;
CompiledProgram::CompiledProgram(CompiledProgram&&) noexcept = default;
CompiledProgram& CompiledProgram::operator=(CompiledProgram&&) noexcept = default;
CompiledProgram::~CompiledProgram() {
  module.reset();  // the module must go before its context
  context.reset();
}

std::string formatDiagnostic(const Diagnostic& d) {
  const char* kind = d.severity == Diagnostic::Severity::Error     ? "error"
                     : d.severity == Diagnostic::Severity::Warning ? "warning"
                                                                  : "note";
  std::ostringstream out;
  if (!d.where.file.empty()) {
    out << d.where.file << ":" << d.where.line << ":" << d.where.column << ": ";
  }
  out << kind << ": " << d.message;
  if (!d.sourceLine.empty() && d.where.column > 0) {
    out << "\n  " << d.sourceLine << "\n  ";
    for (unsigned i = 1; i < d.where.column && i <= d.sourceLine.size(); ++i)
      out << (d.sourceLine[i - 1] == '\t' ? '\t' : ' ');
    out << "^";
  }
  return out.str();
}

std::string printModule(const CompiledProgram& program) {
  std::string text;
  llvm::raw_string_ostream out(text);
  if (program.module) program.module->print(out, nullptr);
  return out.str();
}

std::string describeOptions(const CompileOptions& options) {
  std::string text = std::string(options.fastMath ? "fast" : "safe") + (options.lineTables ? "+lines" : "");
  for (auto& i : options.includeDirs) text += std::string("\0I", 2) + i;
  for (auto& d : options.defines) text += std::string("\0D", 2) + d;
  for (auto& h : options.preincludes) text += std::string("\0P", 2) + h;
  for (auto& [n, v] : options.functionConstants) {
    char value[64];
    std::snprintf(value, sizeof value, "%u=%.17g", n, v);
    text += std::string("\0F", 2) + value;
  }
  if (options.kernels) {
    text += std::string("\0K", 2);
    for (auto& k : *options.kernels) text += k + '\1';
  }
  return text;
}

namespace {

// The standard library's headers by path under the header root: the embedded ones, or, for
// developers of mslsim, a modified copy (MSLSIM_STDLIB_DIR, a directory laid out as
// frontend/include/metal; tests/stdlib/mutate.py): served in the same place, so the copy is the
// standard library (its hooks allowed, its names in cache keys), not a user's header.
const std::vector<std::pair<std::string, std::string>>& stdlibHeaders() {
  static const std::vector<std::pair<std::string, std::string>> headers = [] {
    std::vector<std::pair<std::string, std::string>> h;
    const char* dir = std::getenv("MSLSIM_STDLIB_DIR");
    for (unsigned i = 0; i < kEmbeddedHeaderCount; ++i) {
      std::string contents = kEmbeddedHeaders[i].contents;
      if (dir && *dir)
        if (auto copy = llvm::MemoryBuffer::getFile(std::string(dir) + "/" + kEmbeddedHeaders[i].path))
          contents = (*copy)->getBuffer().str();
      h.emplace_back(kEmbeddedHeaders[i].path, std::move(contents));
    }
    return h;
  }();
  return headers;
}

}  // namespace

std::string frontendFingerprint() {
  // Asked at every compile (cache keys, the precompiled library's name); the headers never change.
  static const std::string fingerprint = [] {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const std::string& text) {
      for (char c : text) h = (h ^ uint8_t(c)) * 1099511628211ull;
      h = (h ^ 0xFF) * 1099511628211ull;
    };
    for (auto& [path, contents] : stdlibHeaders()) {
      mix(path);
      mix(contents);
    }
    return std::string(MSLSIM_VERSION) + "-clang" + CLANG_VERSION_STRING + "-" + std::to_string(h);
  }();
  return fingerprint;
}

std::vector<std::string> embeddedHeaderNames() {
  std::vector<std::string> names;
  for (unsigned i = 0; i < kEmbeddedHeaderCount; ++i) names.push_back(kEmbeddedHeaders[i].path);
  return names;
}

namespace {

constexpr const char* kHeaderRoot = "/__mslsim/include";
constexpr const char* kStdlibPchHeader = "__mslsim/stdlib_pch.h";
constexpr const char* kEntryPrefix = "__mslsim_entry.";
// The working directory a precompiled prefix is built in (see PrecompiledPrefix): Clang's PCH
// writer makes the relative names of line directives absolute against it.
constexpr const char* kPrefixWorkingDirectory = "/__mslsim/prefix-directory";

// ---------------------------------------------------------------------------------------------
// Files: user files are rewritten on read; the original text is kept for diagnostics.

struct RewrittenFile {
  std::string original;
  RewrittenSource rewritten;
};

class RewritingFileSystem : public llvm::vfs::ProxyFileSystem {
 public:
  RewritingFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> base)
      : ProxyFileSystem(std::move(base)) {}

  // Registers in-memory contents for `path` (the main file need not exist on disk); `kernels`:
  // the kernels a compilation generates code for (CompileOptions::kernels), whose explicit
  // instantiations alone keep their bodies (see KernelSelection.h).
  void addVirtualFile(const std::string& path, const std::string& contents,
                      const std::optional<std::vector<std::string>>& kernels = std::nullopt) {
    auto& f = files_[path];
    f.original = contents;
    f.rewritten = rewriteMslSource(contents);
    if (kernels && !kernels->empty())
      declareUnwantedInstantiations(contents, f.rewritten, std::set<std::string>(kernels->begin(), kernels->end()));
    virtual_.insert(path);
  }

  // Serves `text` as `path` as it is: text the front end made from a user file (the parts of a
  // file with a precompiled prefix), neither rewritten again nor indexed for reports.
  void addVerbatimFile(const std::string& path, std::string text) {
    verbatim_[path] = std::move(text);
    virtual_.insert(path);
  }

  // Every user file read so far, as an index for reports.
  std::shared_ptr<SourceIndex> index() const {
    auto index = std::make_shared<SourceIndex>();
    for (auto& [path, f] : files_) index->add(path, f.original, f.rewritten.columns);
    for (auto& [path, f] : files_) index->addPresumedFiles(path);
    return index;
  }

  const RewrittenFile* find(const std::string& path) const {
    auto it = files_.find(path);
    return it == files_.end() ? nullptr : &it->second;
  }

  // Inserts `text` (no line break) at byte `offset` of the text served for the user file `path`;
  // reports keep pointing at the user's columns. False if `path` is not a user file read so far.
  bool insertText(const std::string& path, unsigned offset, const std::string& text) {
    auto it = files_.find(path);
    if (it == files_.end() || offset > it->second.rewritten.text.size()) return false;
    RewrittenSource& r = it->second.rewritten;
    size_t lineStart = offset == 0 ? 0 : r.text.rfind('\n', offset - 1);
    lineStart = lineStart == std::string::npos || offset == 0 ? 0 : lineStart + 1;
    unsigned line = 1 + unsigned(std::count(r.text.begin(), r.text.begin() + lineStart, '\n'));
    unsigned column = unsigned(offset - lineStart) + 1;
    r.columns.insertEdit(line, column, unsigned(text.size()), r.columns.originalColumn(line, column), 0);
    r.text.insert(offset, text);
    return true;
  }

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    std::string p = path.str();
    // The directories of in-memory files exist too, whether or not they do on disk.
    for (auto& v : virtual_)
      if (v.size() > p.size() && v.compare(0, p.size(), p) == 0 && v[p.size()] == '/') {
        auto st = ProxyFileSystem::status(path);
        if (st) return st;
        return llvm::vfs::Status(p, llvm::sys::fs::UniqueID(0xfeed, std::hash<std::string>{}(p)),
                                 llvm::sys::TimePoint<>(), 0, 0, 0,
                                 llvm::sys::fs::file_type::directory_file, llvm::sys::fs::all_all);
      }
    if (auto v = verbatim_.find(p); v != verbatim_.end())
      return llvm::vfs::Status(p, llvm::sys::fs::UniqueID(0xfeed, std::hash<std::string>{}(p)), llvm::sys::TimePoint<>(),
                               0, 0, v->second.size(), llvm::sys::fs::file_type::regular_file, llvm::sys::fs::all_read);
    if (const RewrittenFile* f = load(p)) {
      if (virtual_.count(p))
        return llvm::vfs::Status(p, llvm::sys::fs::UniqueID(0xfeed, std::hash<std::string>{}(p)),
                                 llvm::sys::TimePoint<>(), 0, 0, f->rewritten.text.size(),
                                 llvm::sys::fs::file_type::regular_file,
                                 llvm::sys::fs::all_read);
      auto st = ProxyFileSystem::status(path);
      if (st) return llvm::vfs::Status::copyWithNewSize(*st, f->rewritten.text.size());
      return st;
    }
    return ProxyFileSystem::status(path);
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    std::string p = path.str();
    if (auto v = verbatim_.find(p); v != verbatim_.end())
      return std::unique_ptr<llvm::vfs::File>(new MemoryFile(*status(path), v->second));
    if (const RewrittenFile* f = load(p)) {
      auto st = status(path);
      if (!st) return st.getError();
      return std::unique_ptr<llvm::vfs::File>(new MemoryFile(*st, f->rewritten.text));
    }
    return ProxyFileSystem::openFileForRead(path);
  }

 private:
  class MemoryFile : public llvm::vfs::File {
   public:
    MemoryFile(llvm::vfs::Status st, const std::string& text) : status_(std::move(st)), text_(text) {}
    llvm::ErrorOr<llvm::vfs::Status> status() override { return status_; }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t,
                                                                 bool, bool) override {
      return llvm::MemoryBuffer::getMemBufferCopy(text_, name);
    }
    std::error_code close() override { return {}; }

   private:
    llvm::vfs::Status status_;
    const std::string& text_;
  };

  // User files (anything outside the embedded header root) are rewritten once and cached.
  const RewrittenFile* load(const std::string& path) {
    if (llvm::StringRef(path).startswith(kHeaderRoot)) return nullptr;
    auto it = files_.find(path);
    if (it != files_.end()) return &it->second;
    auto st = getUnderlyingFS().status(path);
    if (!st || !st->isRegularFile()) return nullptr;
    auto buffer = getUnderlyingFS().getBufferForFile(path);
    if (!buffer) return nullptr;
    auto& f = files_[path];
    f.original = (*buffer)->getBuffer().str();
    f.rewritten = rewriteMslSource(f.original);
    return &f;
  }

  std::map<std::string, RewrittenFile> files_;
  std::map<std::string, std::string> verbatim_;
  std::set<std::string> virtual_;
};

// ---------------------------------------------------------------------------------------------
// Diagnostics: collected as values, with columns mapped back to the user's original text.

class CollectingDiagnostics : public clang::DiagnosticConsumer {
 public:
  CollectingDiagnostics(RewritingFileSystem& fs, std::vector<Diagnostic>& out) : fs_(fs), out_(out) {}

  // A file with thousands of mistakes shows the first few, as Clang does, and says how many more
  // there were; Clang itself stops parsing at kErrorLimit.
  static constexpr unsigned kShownErrors = 20, kShownWarnings = 100, kErrorLimit = 1000;

  void BeginSourceFile(const clang::LangOptions& lang, const clang::Preprocessor* pp) override {
    DiagnosticConsumer::BeginSourceFile(lang, pp);
    lang_ = lang;
  }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == clang::DiagnosticsEngine::Ignored) return;
    if (std::optional<ArmConversion> arm = bfloatConditionalArm(info, lang_)) armConversions_.push_back(*arm);
    if (info.getID() == clang::diag::fatal_too_many_errors) {
      stoppedCounting_ = true;
      return;
    }
    // Notes belong to the error or warning before them.
    if (level == clang::DiagnosticsEngine::Note && hidingNotes_) return;
    if (level >= clang::DiagnosticsEngine::Error || level == clang::DiagnosticsEngine::Warning) {
      bool error = level >= clang::DiagnosticsEngine::Error;
      unsigned& shown = error ? shownErrors_ : shownWarnings_;
      hidingNotes_ = shown >= (error ? kShownErrors : kShownWarnings);
      if (hidingNotes_) {
        ++(error ? hiddenErrors_ : hiddenWarnings_);
        return;
      }
      ++shown;
    }
    Diagnostic d;
    d.severity = level >= clang::DiagnosticsEngine::Error ? Diagnostic::Severity::Error
                 : level == clang::DiagnosticsEngine::Warning ? Diagnostic::Severity::Warning
                                                              : Diagnostic::Severity::Note;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    d.message = message.str().str();
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(info.getLocation()));
      if (p.isValid()) {
        d.where = locate(p.getFilename(), p.getLine(), p.getColumn());
        d.sourceLine = sourceLine(p.getFilename(), p.getLine());
      }
    }
    out_.push_back(std::move(d));
  }

  // The bfloat conditionals whose integer arm a compilation again would convert (ConditionalArms.h).
  const std::vector<ArmConversion>& armConversions() const { return armConversions_; }

  void finish() override {
    if (hiddenErrors_) {
      std::string more = stoppedCounting_ ? "at least " + std::to_string(hiddenErrors_) : std::to_string(hiddenErrors_);
      out_.push_back({Diagnostic::Severity::Error, {}, fmt(more, "error", hiddenErrors_, kShownErrors) +
                          (stoppedCounting_ ? "; compilation stopped after " + std::to_string(kErrorLimit) : ""), ""});
    }
    if (hiddenWarnings_)
      out_.push_back({Diagnostic::Severity::Warning, {},
                      fmt(std::to_string(hiddenWarnings_), "warning", hiddenWarnings_, kShownWarnings), ""});
    hiddenErrors_ = hiddenWarnings_ = 0;
  }

  SourcePosition locate(const std::string& file, unsigned line, unsigned column) const {
    SourcePosition where{file, line, column};
    if (const RewrittenFile* f = fs_.find(file))
      where.column = f->rewritten.columns.originalColumn(line, column);
    if (llvm::StringRef(file).startswith(kHeaderRoot))
      where.file = "<metal_stdlib>/" + file.substr(std::string(kHeaderRoot).size() + 1);
    return where;
  }

  std::string sourceLine(const std::string& file, unsigned line) const {
    if (const RewrittenFile* f = fs_.find(file)) return SourceIndex::lineOfText(f->original, line);
    return "";
  }

 private:
  static std::string fmt(const std::string& count, const char* what, unsigned n, unsigned shown) {
    return count + " more " + what + (n == 1 ? "" : "s") + " not shown (the first " + std::to_string(shown) +
           " are above)";
  }
  RewritingFileSystem& fs_;
  std::vector<Diagnostic>& out_;
  unsigned shownErrors_ = 0, shownWarnings_ = 0, hiddenErrors_ = 0, hiddenWarnings_ = 0;
  bool hidingNotes_ = false, stoppedCounting_ = false;
  clang::LangOptions lang_;
  std::vector<ArmConversion> armConversions_;
};

// ---------------------------------------------------------------------------------------------
// Attribute plugins. Each GNU-spelled msl_* attribute becomes an AnnotateAttr "msl_<name>" whose
// string carries the argument ("msl_buffer:3", "msl_host_name:foo", "msl_builtin:thread_position_in_grid").

enum class ArgKind { None, Integer, String };

std::string annotationFor(clang::Sema& sema, const clang::ParsedAttr& attr, const char* name,
                          ArgKind kind, bool& ok, clang::Expr*& dependent) {
  ok = true;
  dependent = nullptr;
  std::string text = std::string("msl_") + name;
  if (kind == ArgKind::None) return text;
  if (attr.getNumArgs() != 1 || !attr.isArgExpr(0)) {
    ok = false;
    return text;
  }
  clang::Expr* e = attr.getArgAsExpr(0);
  if (kind == ArgKind::String) {
    auto* s = llvm::dyn_cast<clang::StringLiteral>(e->IgnoreParenCasts());
    if (!s) {
      ok = false;
      return text;
    }
    return text + ":" + s->getString().str();
  }
  if (e->isValueDependent()) {
    // `max_total_threads_per_threadgroup(BM * BN * 32)` in a template: the expression rides on the
    // annotation, Clang instantiates it with the template, and annotation() evaluates it then.
    dependent = e;
    return text;
  }
  auto value = e->getIntegerConstantExpr(sema.Context);
  if (!value || value->isNegative()) {
    ok = false;
    return text;
  }
  text += ":" + std::to_string(value->getZExtValue());
  // msl_enabled_by(constant): the value, then the function constant's name.
  if (llvm::StringRef(name) == "enabled_by") {
    if (auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
      text += ":" + ref->getDecl()->getNameAsString();
    else
      text += ":?";
  }
  return text;
}

template <int Which>
struct MslAttribute;

#define MSLSIM_ATTRIBUTE(INDEX, NAME, KIND)                                                     \
  template <>                                                                                  \
  struct MslAttribute<INDEX> : clang::ParsedAttrInfo {                                         \
    static constexpr const char* kName = #NAME;                                                \
    MslAttribute() {                                                                           \
      static constexpr Spelling spellings[] = {{clang::ParsedAttr::AS_GNU, "msl_" #NAME}};     \
      Spellings = spellings;                                                                   \
      OptArgs = (KIND) == ArgKind::None ? 0 : 1;                                               \
    }                                                                                          \
    AttrHandling handleDeclAttribute(clang::Sema& sema, clang::Decl* decl,                     \
                                     const clang::ParsedAttr& attr) const override {           \
      return handle(sema, decl, attr, kName, KIND);                                            \
    }                                                                                          \
  };                                                                                           \
  static clang::ParsedAttrInfoRegistry::Add<MslAttribute<INDEX>> registerMsl##INDEX("msl_" #NAME, "");

clang::ParsedAttrInfo::AttrHandling handle(clang::Sema& sema, clang::Decl* decl,
                                           const clang::ParsedAttr& attr, const char* name,
                                           ArgKind kind) {
  bool ok;
  clang::Expr* dependent;
  std::string annotation = annotationFor(sema, attr, name, kind, ok, dependent);
  if (!ok) {
    unsigned id = sema.getDiagnostics().getCustomDiagID(clang::DiagnosticsEngine::Error,
                                                        "attribute '%0' takes %1");
    sema.Diag(attr.getLoc(), id) << name
                                 << (kind == ArgKind::String ? "one string literal"
                                                             : "one non-negative integer constant");
    return clang::ParsedAttrInfo::AttributeNotApplied;
  }
  // MSL allows `threadgroup` variables in any block scope; C++ has no such storage, so a
  // threadgroup local becomes a function-scope static (one per template instantiation), which the
  // simulator later moves into the per-threadgroup arena. Pointers and references to threadgroup
  // memory stay ordinary locals, and so do arrays of them (`threadgroup float* rows[4]`: ggml's
  // helper_mv_reduce_and_write), whose elements point into threadgroup memory.
  if (annotation == "msl_threadgroup_memory") {
    if (auto* var = llvm::dyn_cast<clang::VarDecl>(decl)) {
      clang::QualType element = sema.Context.getBaseElementType(var->getType());
      if (!llvm::isa<clang::ParmVarDecl>(var) && var->isLocalVarDecl() && !element->isPointerType() &&
          !var->getType()->isReferenceType())
        var->setStorageClass(clang::SC_Static);
    }
  }
  clang::Expr* args[1] = {dependent};
  decl->addAttr(clang::AnnotateAttr::Create(sema.Context, annotation, args, dependent ? 1 : 0,
                                            attr.getRange(), clang::AttributeCommonInfo::AS_GNU));
  return clang::ParsedAttrInfo::AttributeApplied;
}

MSLSIM_ATTRIBUTE(0, kernel, ArgKind::None)
MSLSIM_ATTRIBUTE(1, threadgroup_memory, ArgKind::None)
MSLSIM_ATTRIBUTE(2, buffer, ArgKind::Integer)
MSLSIM_ATTRIBUTE(3, threadgroup, ArgKind::Integer)
MSLSIM_ATTRIBUTE(4, builtin, ArgKind::String)
MSLSIM_ATTRIBUTE(5, host_name, ArgKind::String)
MSLSIM_ATTRIBUTE(6, max_total_threads_per_threadgroup, ArgKind::Integer)
MSLSIM_ATTRIBUTE(7, function_constant, ArgKind::Integer)
MSLSIM_ATTRIBUTE(8, enabled_by, ArgKind::Integer)
#undef MSLSIM_ATTRIBUTE

// Returns the argument of annotation "msl_<name>[:arg]" on `decl`, if present. An argument that
// depended on template parameters is the annotation's expression, evaluated in the instantiation.
std::optional<std::string> annotation(const clang::Decl* decl, llvm::StringRef name) {
  for (auto* a : decl->specific_attrs<clang::AnnotateAttr>()) {
    llvm::StringRef text = a->getAnnotation();
    if (!text.consume_front("msl_") || !text.startswith(name)) continue;
    text = text.drop_front(name.size());
    if (text.empty() && a->args_size() == 1) {
      const clang::Expr* e = *a->args_begin();
      if (e->isValueDependent()) continue;
      clang::Expr::EvalResult value;
      if (e->EvaluateAsInt(value, decl->getASTContext()) && !value.Val.getInt().isNegative())
        return std::to_string(value.Val.getInt().getZExtValue());
      continue;
    }
    if (text.empty()) return std::string();
    if (text.consume_front(":")) return text.str();
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Kernels: description and trampoline.

// The name the host uses for a kernel function (its [[host_name]], else its qualified name), or
// nothing if `fn` is not an addressable kernel: not a kernel, a template pattern (its
// instantiations are the kernels) or an instantiation without a [[host_name]].
std::optional<std::string> kernelHostName(const clang::FunctionDecl* fn) {
  // A kernel is a definition, or an instantiation left a declaration because the compilation
  // generates no code for it (see KernelSelection.h); a prototype is not one.
  bool declaredInstantiation = fn->getTemplateSpecializationKind() == clang::TSK_ExplicitInstantiationDeclaration;
  if (!annotation(fn, "kernel") || !(fn->doesThisDeclarationHaveABody() || declaredInstantiation)) return std::nullopt;
  if (fn->isDependentContext()) return std::nullopt;
  if (auto host = annotation(fn, "host_name")) return *host;
  if (fn->isTemplateInstantiation()) return std::nullopt;
  // A kernel in a namespace is `ns::name` to the host, as in Metal's API.
  std::string name = fn->getQualifiedNameAsString();
  for (size_t at; (at = name.find("(anonymous namespace)::")) != std::string::npos;)
    name.erase(at, std::strlen("(anonymous namespace)::"));
  return name;
}

// When only some kernels are wanted: the explicit instantiations that make the others become
// declarations the moment Clang is asked for them, before it instantiates their bodies. Clang
// instantiates an explicit instantiation definition's body at once, inside the declaration; the
// one hook before that is the AST's mutation listener (InstantiationRequested, called as the
// specialisation gets its kind). Text rewriting (declareUnwantedInstantiations) cannot reach
// instantiations a macro writes, as MLX's default library does for thousands of kernels.
class UnwantedInstantiations : public clang::ASTConsumer, public clang::ASTMutationListener {
 public:
  explicit UnwantedInstantiations(std::set<std::string> wanted) : wanted_(std::move(wanted)) {}
  clang::ASTMutationListener* GetASTMutationListener() override { return this; }
  void InstantiationRequested(const clang::ValueDecl* decl) override {
    auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl);
    if (!fn || fn->getTemplateSpecializationKind() != clang::TSK_ExplicitInstantiationDefinition) return;
    if (!annotation(fn, "kernel")) return;
    std::optional<std::string> name = annotation(fn, "host_name");
    if (!name || wanted_.count(*name)) return;
    const_cast<clang::FunctionDecl*>(fn)->setTemplateSpecializationKind(clang::TSK_ExplicitInstantiationDeclaration);
  }

 private:
  std::set<std::string> wanted_;
};

// Stands between the parser and Clang's code generator when only some kernels are wanted: the
// other kernels never reach code generation, and neither does anything only they use (templates
// and inline functions are generated on first use). A library of thousands of kernels then costs
// its parse plus the code of the kernels a run dispatches.
class KernelCodeFilter : public clang::MultiplexConsumer {
 public:
  KernelCodeFilter(std::unique_ptr<clang::ASTConsumer> codegen, std::set<std::string> wanted)
      : MultiplexConsumer(one(std::move(codegen))), wanted_(std::move(wanted)) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    llvm::SmallVector<clang::Decl*, 4> kept;
    for (clang::Decl* d : group) {
      auto* fn = llvm::dyn_cast<clang::FunctionDecl>(d);
      std::optional<std::string> name = fn ? kernelHostName(fn) : std::nullopt;
      if (!name || wanted_.count(*name)) kept.push_back(d);
    }
    if (kept.empty()) return true;
    return MultiplexConsumer::HandleTopLevelDecl(
        clang::DeclGroupRef::Create(kept.front()->getASTContext(), kept.data(), unsigned(kept.size())));
  }

 private:
  static std::vector<std::unique_ptr<clang::ASTConsumer>> one(std::unique_ptr<clang::ASTConsumer> c) {
    std::vector<std::unique_ptr<clang::ASTConsumer>> v;
    v.push_back(std::move(c));
    return v;
  }
  std::set<std::string> wanted_;
};

// The function constants a kernel's code reads without testing them with
// is_function_constant_defined: what Metal calls required (MTLFunctionConstant.required: "optional
// only if it is referenced in a call to is_function_constant_defined"); making such a function
// without a value for one fails. Walks the kernel's body and its parameters' attributes (arguments
// a constant enables), every function it calls or constructs with (template instantiations too),
// and the initialisers of the program-scope variables it reads. Needs the bodies instantiated: for
// kernels whose code is generated.
class RequiredFunctionConstants : public clang::RecursiveASTVisitor<RequiredFunctionConstants> {
 public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  // By index, each with its declaration.
  std::map<unsigned, const clang::VarDecl*> of(const clang::FunctionDecl* kernel) {
    for (const clang::ParmVarDecl* p : kernel->parameters())
      for (const auto* a : p->specific_attrs<clang::AnnotateAttr>())
        for (clang::Expr* arg : a->args()) TraverseStmt(arg);
    enqueue(kernel);
    while (!work_.empty()) {
      const clang::FunctionDecl* fn = work_.back();
      work_.pop_back();
      if (auto* ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(fn))
        for (const clang::CXXCtorInitializer* init : ctor->inits()) TraverseStmt(init->getInit());
      TraverseStmt(fn->getBody());
    }
    std::map<unsigned, const clang::VarDecl*> required;
    for (auto& [index, var] : used_)
      if (!tested_.count(var->getName().str())) required[index] = var;
    return required;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    note(ref->getDecl());
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* member) {
    note(member->getMemberDecl());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    if (const clang::FunctionDecl* callee = call->getDirectCallee()) enqueue(callee);
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* construct) {
    enqueue(construct->getConstructor());
    return true;
  }

 private:
  void note(const clang::ValueDecl* decl) {
    if (auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl)) return enqueue(fn);
    auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!var) return;
    if (auto index = annotation(var, "function_constant"); index && !index->empty()) {
      used_.emplace(unsigned(std::stoul(*index)), var);
    } else if (llvm::StringRef name = var->getName(); name.consume_front("__mslsim_fc_defined_")) {
      tested_.insert(name.str());  // is_function_constant_defined(name) (the prelude's macro)
    } else if (var->hasGlobalStorage() && var->getInit() && readVariables_.insert(var).second) {
      TraverseStmt(const_cast<clang::Expr*>(var->getInit()));
    }
  }
  void enqueue(const clang::FunctionDecl* fn) {
    const clang::FunctionDecl* definition = fn ? fn->getDefinition() : nullptr;
    if (definition && definition->hasBody() && functions_.insert(definition).second) work_.push_back(definition);
  }

  std::vector<const clang::FunctionDecl*> work_;
  std::set<const clang::FunctionDecl*> functions_;
  std::set<const clang::VarDecl*> readVariables_;
  std::map<unsigned, const clang::VarDecl*> used_;
  std::set<std::string> tested_;
};

class KernelCollector : public clang::ASTConsumer,
                        public clang::RecursiveASTVisitor<KernelCollector> {
 public:
  // `codegen` receives a trampoline for each kernel in `generate` (every kernel when it is
  // nullopt); null when nothing is generated.
  // `prefixPch`: the precompiled prefix of the user's file the translation unit starts from (see
  // PrecompiledPrefix), empty for none.
  KernelCollector(clang::CompilerInstance& ci, clang::ASTConsumer* codegen,
                  std::optional<std::set<std::string>> generate, CollectingDiagnostics& diags,
                  CompileResult& result, std::string prefixPch = "")
      : ci_(ci), codegen_(codegen), generate_(std::move(generate)), diags_(diags), result_(result),
        prefixPch_(std::move(prefixPch)) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  // The precompiled standard library declares no kernel and no function constant: its thousands
  // of declarations are not read back from the PCH only to be walked. A precompiled prefix of the
  // user's file was described when it was built; only what later text instantiated from its
  // templates is new.
  bool TraverseDecl(clang::Decl* decl) {
    if (decl && decl->isFromASTFile()) return fromPrefix(decl) ? traversePrefixDecl(decl) : true;
    return clang::RecursiveASTVisitor<KernelCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* fn) {
    std::optional<std::string> name = kernelHostName(fn);
    if (name && seen_.insert(*name).second) candidates_.push_back({fn, *name});
    return true;
  }

  // `constant T name [[function_constant(n)]]`: listed for the host, which specialises them.
  bool VisitVarDecl(clang::VarDecl* var) {
    auto index = annotation(var, "function_constant");
    if (!index || index->empty()) return true;
    clang::PrintingPolicy policy(var->getASTContext().getLangOpts());
    FunctionConstantInfo c;
    c.name = var->getNameAsString();
    c.index = unsigned(std::stoul(*index));
    c.type = var->getType().getUnqualifiedType().getAsString(policy);
    c.canonicalType = var->getType().getCanonicalType().getUnqualifiedType().getAsString(policy);
    c.location = position(var->getLocation());
    result_.functionConstants.push_back(std::move(c));
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;
    TraverseDecl(ctx.getTranslationUnitDecl());
    // Explicit instantiations carry [[host_name]] on the specialisation, which the traversal above
    // reaches through the template's specialisations; nothing else to find.
    for (auto& [fn, name] : candidates_) {
      KernelInfo info;
      if (!describe(ctx, fn, name, info)) continue;
      result_.declaredKernels.push_back(info);
      if (codegen_ && (!generate_ || generate_->count(name))) {
        clang::PrintingPolicy policy(ctx.getLangOpts());
        for (auto [index, var] : RequiredFunctionConstants().of(fn))
          info.requiredFunctionConstants.push_back(
              {var->getNameAsString(), index, var->getType().getUnqualifiedType().getAsString(policy),
               var->getType().getCanonicalType().getUnqualifiedType().getAsString(policy),
               position(var->getLocation())});
        clang::FunctionDecl* entry = makeTrampoline(ctx, fn, info.entrySymbol);
        codegen_->HandleTopLevelDecl(clang::DeclGroupRef(entry));
        result_.program.kernels.push_back(std::move(info));
      }
    }
  }

 private:
  bool fromPrefix(const clang::Decl* decl) const {
    if (prefixPch_.empty()) return false;
    clang::ASTReader* reader = ci_.getASTReader().get();
    clang::serialization::ModuleFile* owner = reader ? reader->getOwningModuleFile(decl) : nullptr;
    return owner && owner->FileName == prefixPch_;
  }

  // A declaration of the precompiled prefix, in the order a parse of the whole file visits it: the
  // namespaces it opens and, of its function templates, the specialisations made after it (the
  // explicit instantiations that name kernels).
  bool traversePrefixDecl(clang::Decl* decl) {
    if (llvm::isa<clang::NamespaceDecl>(decl) || llvm::isa<clang::LinkageSpecDecl>(decl) ||
        llvm::isa<clang::ExportDecl>(decl)) {
      for (clang::Decl* member : llvm::cast<clang::DeclContext>(decl)->decls()) TraverseDecl(member);
    } else if (auto* tmpl = llvm::dyn_cast<clang::FunctionTemplateDecl>(decl)) {
      if (tmpl != tmpl->getCanonicalDecl()) return true;
      for (clang::FunctionDecl* specialisation : tmpl->specializations())
        if (!specialisation->isFromASTFile() &&
            specialisation->getTemplateSpecializationKind() != clang::TSK_ExplicitSpecialization)
          TraverseDecl(specialisation);
    }
    return true;
  }

  void error(clang::SourceLocation loc, const std::string& message) {
    auto& d = ci_.getDiagnostics();
    d.Report(loc, d.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0")) << message;
  }

  SourcePosition position(clang::SourceLocation loc) {
    auto& sm = ci_.getSourceManager();
    clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(loc));
    if (!p.isValid()) return {};
    return diags_.locate(p.getFilename(), p.getLine(), p.getColumn());
  }

  // The parameter's declaration text up to its name, e.g. "const device float*". It starts after the
  // preceding '(' or ',' in the file, because address-space words expand to nothing and so are not
  // part of the declaration's own source range.
  std::string declaredType(const clang::ParmVarDecl* p) {
    auto& sm = ci_.getSourceManager();
    // Anchored at the parameter's name where it was written (in the file, or in the body of the
    // macro that declared the kernel), then scanned back to the '(' or ',' before it: the type's
    // first token may come from elsewhere (an address-space macro, a macro argument).
    clang::SourceLocation end = sm.getSpellingLoc(p->getLocation().isValid() && !p->getName().empty()
                                                      ? p->getLocation()
                                                      : p->getEndLoc());
    clang::SourceLocation begin = end;
    auto [file, beginOffset] = sm.getDecomposedLoc(begin);
    unsigned endOffset = sm.getDecomposedLoc(end).second;
    llvm::StringRef buffer = sm.getBufferData(file);
    if (endOffset < beginOffset || endOffset > buffer.size()) return "";
    // Back to the '(' or ',' before the parameter, skipping comments (a "// {M, N, K}" on the
    // previous line has commas too): the text from the start of the line before is scanned
    // forward once to mark what is comment.
    size_t scanFrom = beginOffset;
    for (int lines = 0; scanFrom > 0 && lines < 64; --scanFrom)
      if (buffer[scanFrom - 1] == '\n') ++lines;
    std::vector<bool> comment(beginOffset - scanFrom, false);
    for (size_t i = scanFrom; i < beginOffset; ++i) {
      if (buffer.substr(i).startswith("//")) {
        while (i < beginOffset && buffer[i] != '\n') comment[i++ - scanFrom] = true;
      } else if (buffer.substr(i).startswith("/*")) {
        size_t close = buffer.find("*/", i + 2);
        size_t stop = std::min<size_t>(close == llvm::StringRef::npos ? beginOffset : close + 2, beginOffset);
        for (; i < stop; ++i) comment[i - scanFrom] = true;
        --i;
      }
    }
    // Commas and parentheses inside template arguments (`packed_vec<float, 3>`) or `decltype(...)`
    // belong to the type.
    size_t start = beginOffset;
    int nesting = 0;
    while (start > scanFrom) {
      char c = buffer[start - 1];
      if (!comment[start - 1 - scanFrom]) {
        if (c == '>' || c == ')') {
          ++nesting;
        } else if ((c == '<' || c == '(') && nesting > 0) {
          --nesting;
        } else if ((c == '(' || c == ',') && nesting == 0) {
          break;
        }
      }
      --start;
    }
    std::string uncommented;
    for (size_t i = start; i < endOffset; ++i)
      if (i >= beginOffset || !comment[i - scanFrom]) uncommented += buffer[i];
    llvm::StringRef text = uncommented;
    // Collapse whitespace and drop attributes the rewriter produced.
    std::string out;
    bool space = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text.substr(i).startswith("__attribute__((")) {
        int depth = 0;
        for (; i < text.size(); ++i) {
          if (text[i] == '(') ++depth;
          if (text[i] == ')' && --depth == 0) break;
        }
        continue;
      }
      if (text.substr(i).startswith("//")) {
        while (i < text.size() && text[i] != '\n') ++i;
        space = !out.empty();
        continue;
      }
      char c = text[i];
      if (std::isspace((unsigned char)c) || (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n')) {
        space = !out.empty();
        continue;
      }
      if (space && !(c == '*' || c == '&')) out += ' ';
      space = false;
      out += c;
    }
    return out;
  }

  static bool hasWord(const std::string& text, const char* word) {
    size_t n = std::strlen(word);
    for (size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
      bool left = pos == 0 || !(std::isalnum((unsigned char)text[pos - 1]) || text[pos - 1] == '_');
      bool right = pos + n >= text.size() ||
                   !(std::isalnum((unsigned char)text[pos + n]) || text[pos + n] == '_');
      if (left && right) return true;
    }
    return false;
  }

  bool describe(clang::ASTContext& ctx, clang::FunctionDecl* fn, const std::string& name,
                KernelInfo& info) {
    info.name = name;
    info.entrySymbol = kEntryPrefix + name;
    info.location = position(fn->getLocation());
    if (auto n = annotation(fn, "max_total_threads_per_threadgroup"))
      info.maxTotalThreadsPerThreadgroup = unsigned(std::stoul(*n));
    bool ok = true;
    if (!fn->getReturnType()->isVoidType()) {
      error(fn->getLocation(), "kernel '" + name + "' must return void");
      ok = false;
    }
    // An argument gated by a function constant that is false does not exist: it takes no implicit
    // index and may share its explicit one.
    auto enabledBy = [&](const clang::ParmVarDecl* p) -> std::optional<std::pair<bool, std::string>> {
      auto e = annotation(p, "enabled_by");
      if (!e) return std::nullopt;
      size_t colon = e->find(':');
      return std::make_pair(e->substr(0, colon) != "0", colon == std::string::npos ? "" : e->substr(colon + 1));
    };
    std::set<unsigned> usedBuffers;
    for (auto* p : fn->parameters()) {
      auto gate = enabledBy(p);
      if (gate && !gate->first) continue;
      if (auto b = annotation(p, "buffer")) usedBuffers.insert(unsigned(std::stoul(*b)));
    }
    unsigned nextImplicit = 0;

    clang::PrintingPolicy policy(ctx.getLangOpts());
    policy.SuppressTagKeyword = true;
    for (unsigned i = 0; i < fn->getNumParams(); ++i) {
      clang::ParmVarDecl* p = fn->getParamDecl(i);
      ArgumentInfo a;
      a.name = p->getNameAsString();
      a.position = i;
      a.location = position(p->getLocation());
      a.typeSpelling = declaredType(p);
      if (auto gate = enabledBy(p)) {
        a.enabled = gate->first;
        a.functionConstant = gate->second;
      }
      clang::QualType type = p->getType();
      std::string label = "argument '" + (a.name.empty() ? std::to_string(i) : a.name) +
                          "' of kernel '" + name + "'";
      if (auto builtin = annotation(p, "builtin")) {
        a.role = ArgumentRole::Builtin;
        parseBuiltinName(*builtin, a.builtin);
        a.space = AddressSpace::Thread;
        if (!describeBuiltinType(ctx, type, a)) {
          error(p->getLocation(), label + ": [[" + *builtin + "]] must have type uint, ushort, "
                                  "int, short or a 2- or 3-component vector of those, not '" +
                                      type.getAsString(policy) + "'");
          ok = false;
        }
      } else if (type->isPointerType() || type->isReferenceType()) {
        clang::QualType pointee = type->getPointeeType();
        a.isReference = type->isReferenceType();
        a.isConst = pointee.isConstQualified();
        a.pointeeType = pointee.getUnqualifiedType().getAsString(policy);
        if (!pointee->isIncompleteType() && !pointee->isDependentType()) {
          a.pointeeSize = ctx.getTypeSizeInChars(pointee).getQuantity();
          a.pointeeAlign = ctx.getTypeAlignInChars(pointee).getQuantity();
        }
        bool tg = annotation(p, "threadgroup_memory").has_value();
        // As written, but with template parameters substituted: "const device float*".
        // `constant` makes the pointee const in C++; the spelling keeps what the author wrote.
        const bool declaredConst = hasWord(a.typeSpelling, "const");
        auto spelled = [&](const char* space) {
          return std::string(declaredConst ? "const " : "") + space + " " + a.pointeeType +
                 (a.isReference ? "&" : "*");
        };
        if (auto n = annotation(p, "threadgroup")) {
          a.role = ArgumentRole::ThreadgroupMemory;
          a.binding = unsigned(std::stoul(*n));
          a.explicitBinding = true;
          a.space = AddressSpace::Threadgroup;
          a.typeSpelling = spelled("threadgroup");
        } else if (tg) {
          error(p->getLocation(), label + ": a threadgroup pointer argument needs [[threadgroup(n)]]");
          ok = false;
        } else {
          a.role = ArgumentRole::Buffer;
          a.space = hasWord(a.typeSpelling, "constant") ? AddressSpace::Constant : AddressSpace::Device;
          if (a.space == AddressSpace::Constant) a.isConst = true;
          bool spaceWritten = hasWord(a.typeSpelling, "device") || hasWord(a.typeSpelling, "constant");
          if (auto n = annotation(p, "buffer")) {
            a.binding = unsigned(std::stoul(*n));
            a.explicitBinding = true;
          } else if (!a.enabled) {
            a.binding = nextImplicit;  // not taken: listed where the next argument goes
          } else {
            while (usedBuffers.count(nextImplicit)) ++nextImplicit;
            a.binding = nextImplicit;
            usedBuffers.insert(nextImplicit);
          }
          if (spaceWritten) {
            a.typeSpelling = spelled(a.space == AddressSpace::Constant ? "constant" : "device");
          } else {
            error(p->getLocation(), label + ": a buffer argument must be a 'device' or 'constant' "
                                    "pointer or reference");
            ok = false;
          }
        }
      } else {
        error(p->getLocation(), label + " has no attribute: a kernel argument by value must be a "
                                "built-in such as [[thread_position_in_grid]]");
        ok = false;
      }
      info.arguments.push_back(std::move(a));
    }
    // Two arguments bound to the same index are a Metal compile error too.
    std::map<std::pair<int, unsigned>, const ArgumentInfo*> bound;
    for (auto& a : info.arguments) {
      if (a.role == ArgumentRole::Builtin || !a.enabled) continue;
      auto key = std::make_pair(int(a.role), a.binding);
      if (bound.count(key)) {
        error(fn->getParamDecl(a.position)->getLocation(),
              "argument '" + a.name + "' of kernel '" + name + "' reuses " +
                  (a.role == ArgumentRole::Buffer ? "buffer" : "threadgroup") + " index " +
                  std::to_string(a.binding) + " of argument '" + bound[key]->name + "'");
        ok = false;
      }
      bound[key] = &a;
    }
    return ok;
  }

  // uint, ushort, int, short, or vec<T, 2|3> of those (our metal_stdlib's vector template).
  static bool describeBuiltinType(clang::ASTContext& ctx, clang::QualType type, ArgumentInfo& a) {
    type = type.getCanonicalType().getUnqualifiedType();
    auto integral = [&](clang::QualType t) {
      return t->isIntegerType() && !t->isBooleanType() && ctx.getTypeSize(t) >= 16 &&
             ctx.getTypeSize(t) <= 32;
    };
    if (integral(type)) {
      a.components = 1;
      a.componentSize = unsigned(ctx.getTypeSize(type) / 8);
      return true;
    }
    auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
        type->getAsCXXRecordDecl());
    if (!spec || spec->getName() != "vec" || spec->getTemplateArgs().size() != 2) return false;
    const auto& args = spec->getTemplateArgs();
    if (args[0].getKind() != clang::TemplateArgument::Type ||
        args[1].getKind() != clang::TemplateArgument::Integral)
      return false;
    unsigned n = unsigned(args[1].getAsIntegral().getZExtValue());
    if (!integral(args[0].getAsType()) || n < 2 || n > 3) return false;
    a.components = n;
    a.componentSize = unsigned(ctx.getTypeSize(args[0].getAsType()) / 8);
    return true;
  }

  // Builds `void entry(void** args) { kernel(*(P0*)args[0], *(P1*)args[1], ...); }` directly in the
  // AST, so Clang's own codegen handles the C++ calling convention of every parameter type.
  clang::FunctionDecl* makeTrampoline(clang::ASTContext& ctx, clang::FunctionDecl* kernel,
                                      const std::string& symbol) {
    clang::SourceLocation loc = kernel->getLocation();
    clang::QualType voidPtr = ctx.getPointerType(ctx.VoidTy);
    clang::QualType voidPtrPtr = ctx.getPointerType(voidPtr);
    clang::FunctionProtoType::ExtProtoInfo epi;
    clang::QualType fnType = ctx.getFunctionType(ctx.VoidTy, {voidPtrPtr}, epi);
    clang::TranslationUnitDecl* tu = ctx.getTranslationUnitDecl();
    std::string identifier = "__mslsim_entry_" + std::to_string(entryCount_++);
    auto* entry = clang::FunctionDecl::Create(
        ctx, tu, loc, loc, clang::DeclarationName(&ctx.Idents.get(identifier)), fnType,
        ctx.getTrivialTypeSourceInfo(fnType), clang::SC_None);
    auto* argsParam = clang::ParmVarDecl::Create(ctx, entry, loc, loc, &ctx.Idents.get("args"),
                                                 voidPtrPtr, ctx.getTrivialTypeSourceInfo(voidPtrPtr),
                                                 clang::SC_None, nullptr);
    entry->setParams({argsParam});
    entry->addAttr(clang::AsmLabelAttr::CreateImplicit(ctx, symbol, /*IsLiteralLabel=*/true));
    entry->addAttr(clang::UsedAttr::CreateImplicit(ctx));

    clang::FPOptionsOverride fp;
    llvm::SmallVector<clang::Expr*, 16> callArgs;
    for (unsigned i = 0; i < kernel->getNumParams(); ++i) {
      clang::QualType paramType = kernel->getParamDecl(i)->getType();
      clang::QualType valueType = paramType.getNonReferenceType();
      clang::Expr* argsRef = clang::DeclRefExpr::Create(
          ctx, clang::NestedNameSpecifierLoc(), loc, argsParam, false, loc, voidPtrPtr,
          clang::VK_LValue);
      clang::Expr* argsValue = clang::ImplicitCastExpr::Create(
          ctx, voidPtrPtr, clang::CK_LValueToRValue, argsRef, nullptr, clang::VK_PRValue, fp);
      clang::Expr* index = clang::IntegerLiteral::Create(ctx, llvm::APInt(32, i), ctx.IntTy, loc);
      clang::Expr* slot = new (ctx) clang::ArraySubscriptExpr(
          argsValue, index, voidPtr, clang::VK_LValue, clang::OK_Ordinary, loc);
      clang::Expr* slotValue = clang::ImplicitCastExpr::Create(
          ctx, voidPtr, clang::CK_LValueToRValue, slot, nullptr, clang::VK_PRValue, fp);
      clang::QualType typedPtr = ctx.getPointerType(valueType);
      clang::Expr* cast = clang::CStyleCastExpr::Create(
          ctx, typedPtr, clang::VK_PRValue, clang::CK_BitCast, slotValue, nullptr, fp,
          ctx.getTrivialTypeSourceInfo(typedPtr), loc, loc);
      clang::Expr* object = clang::UnaryOperator::Create(ctx, cast, clang::UO_Deref, valueType,
                                                         clang::VK_LValue, clang::OK_Ordinary, loc,
                                                         false, fp);
      if (!paramType->isReferenceType())
        object = clang::ImplicitCastExpr::Create(ctx, valueType.getUnqualifiedType(),
                                                 clang::CK_LValueToRValue, object, nullptr,
                                                 clang::VK_PRValue, fp);
      callArgs.push_back(object);
    }
    clang::Expr* callee = clang::DeclRefExpr::Create(ctx, clang::NestedNameSpecifierLoc(), loc,
                                                     kernel, false, loc, kernel->getType(),
                                                     clang::VK_LValue);
    callee = clang::ImplicitCastExpr::Create(ctx, ctx.getPointerType(kernel->getType()),
                                             clang::CK_FunctionToPointerDecay, callee, nullptr,
                                             clang::VK_PRValue, fp);
    clang::Expr* call =
        clang::CallExpr::Create(ctx, callee, callArgs, ctx.VoidTy, clang::VK_PRValue, loc, fp);
    entry->setBody(clang::CompoundStmt::Create(ctx, {call}, fp, loc, loc));
    tu->addDecl(entry);
    return entry;
  }

  clang::CompilerInstance& ci_;
  clang::ASTConsumer* codegen_;
  std::optional<std::set<std::string>> generate_;
  CollectingDiagnostics& diags_;
  CompileResult& result_;
  std::vector<std::pair<clang::FunctionDecl*, std::string>> candidates_;
  std::set<std::string> seen_;
  unsigned entryCount_ = 0;
  std::string prefixPch_;
};

// Headers of Metal features mslsim does not implement: an include of one is an error at the
// user's #include line that says so (the header itself is an empty stand-in, so Clang does not
// also report it missing).
struct UnsupportedHeader {
  const char* prefix;
  const char* feature;
};
constexpr UnsupportedHeader kUnsupportedHeaders[] = {
    {"MetalPerformancePrimitives/", "MetalPerformancePrimitives (Metal 4 tensor operations)"},
    {"metal_raytracing", "ray tracing (metal_raytracing)"},
};

// The directory a path resolves to on disk (symbolic links followed), or the path itself made
// absolute when it is not on disk (the embedded headers, a virtual main file).
std::string resolvedPath(llvm::StringRef path) {
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(path, real)) return std::string(real);
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return std::string(absolute);
}

bool isUnder(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  if (path.size() <= dir.size() || path.compare(0, dir.size(), dir) != 0) return false;
  return dir.back() == '/' || path[dir.size()] == '/';
}

// What a program may include: the Metal standard library (ours, embedded), files under the main
// source's directory and under -I directories, and nothing else of the machine. Kernels are
// untrusted: an include of /etc/passwd would print its lines in the parse errors. A missing header
// gets a note that host headers (<stdio.h>, <vector>) are not there for kernels.
class IncludeChecks : public clang::PPCallbacks {
 public:
  explicit IncludeChecks(clang::CompilerInstance& ci) : diags_(ci.getDiagnostics()) {
    for (const auto& input : ci.getFrontendOpts().Inputs)
      if (input.isFile()) roots_.push_back(resolvedPath(llvm::sys::path::parent_path(input.getFile()).empty()
                                                            ? "."
                                                            : llvm::sys::path::parent_path(input.getFile())));
    for (const auto& entry : ci.getHeaderSearchOpts().UserEntries) roots_.push_back(resolvedPath(entry.Path));
  }
  void InclusionDirective(clang::SourceLocation, const clang::Token&, llvm::StringRef name, bool angled,
                          clang::CharSourceRange range, clang::OptionalFileEntryRef file, llvm::StringRef,
                          llvm::StringRef, const clang::Module*, clang::SrcMgr::CharacteristicKind) override {
    for (auto& h : kUnsupportedHeaders)
      if (name.startswith(h.prefix)) {
        // Fatal: the errors that would follow from the missing declarations say nothing more.
        unsigned id = diags_.getCustomDiagID(clang::DiagnosticsEngine::Fatal,
                                             "not supported: %0: mslsim does not implement <%1>");
        diags_.Report(range.getBegin(), id) << h.feature << name;
        return;
      }
    if (!file) {
      unsigned id = diags_.getCustomDiagID(
          clang::DiagnosticsEngine::Note,
          "includes resolve from the Metal standard library, the source file's directory and -I "
          "directories; host headers (C and C++ libraries, the system's) are not available to kernels");
      diags_.Report(range.getBegin(), id);
      return;
    }
    llvm::StringRef path = file->getName();
    if (path.startswith(kHeaderRoot)) return;
    std::string resolved = resolvedPath(path);
    for (const std::string& root : roots_)
      if (isUnder(resolved, root)) return;
    // Fatal, so that nothing of the file is parsed into further messages.
    unsigned id = diags_.getCustomDiagID(
        clang::DiagnosticsEngine::Fatal,
        "#include %0%1%2 resolves to '%3', outside the directories a program may include from (the "
        "source file's directory and -I directories): add its directory with -I if it is yours");
    diags_.Report(range.getBegin(), id) << (angled ? "<" : "\"") << name << (angled ? ">" : "\"") << resolved;
  }

 private:
  clang::DiagnosticsEngine& diags_;
  std::vector<std::string> roots_;
};

void addPreprocessorHooks(clang::CompilerInstance& ci) {
  ci.getPreprocessor().addPPCallbacks(std::make_unique<IncludeChecks>(ci));
}

// The names a precompiled prefix's line directives gave, as the user wrote them (`#line 1
// "mlx/backend/metal/kernels/utils.h"`): the PCH writer made relative ones absolute against
// kPrefixWorkingDirectory. Run once the PCH is loaded and before anything asks for a position.
void restoreRelativeLineNames(clang::SourceManager& sm) {
  clang::LineTableInfo& table = sm.getLineTable();
  std::string base = std::string(kPrefixWorkingDirectory) + "/";
  std::map<int, int> renamed;
  for (unsigned id = 0, n = table.getNumFilenames(); id < n; ++id) {
    std::string name = table.getFilename(id).str();
    if (llvm::StringRef(name).startswith(base))
      renamed[int(id)] = int(table.getLineTableFilenameID(name.substr(base.size())));
  }
  if (renamed.empty()) return;
  for (auto& [file, entries] : table)
    for (clang::LineEntry& entry : entries)
      if (auto it = renamed.find(entry.FilenameID); it != renamed.end()) entry.FilenameID = it->second;
}

std::optional<std::set<std::string>> wantedKernels(const CompileOptions& options) {
  if (!options.kernels) return std::nullopt;
  return std::set<std::string>(options.kernels->begin(), options.kernels->end());
}

class MslCodeGenAction : public clang::EmitLLVMOnlyAction {
 public:
  MslCodeGenAction(llvm::LLVMContext* context, CollectingDiagnostics& diags,
                   const CompileOptions& options, CompileResult& result, std::string prefixPch)
      : EmitLLVMOnlyAction(context), diags_(diags), options_(options), result_(result),
        prefixPch_(std::move(prefixPch)) {}

 protected:
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    addPreprocessorHooks(ci);
    return EmitLLVMOnlyAction::BeginSourceFileAction(ci);
  }
  void ExecuteAction() override {
    if (!prefixPch_.empty()) restoreRelativeLineNames(getCompilerInstance().getSourceManager());
    EmitLLVMOnlyAction::ExecuteAction();
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    auto codegen = EmitLLVMOnlyAction::CreateASTConsumer(ci, file);
    if (!codegen) return nullptr;
    clang::ASTConsumer* generator = codegen.get();
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(makeStdlibBoundaryCheck(ci, kHeaderRoot));
    consumers.push_back(
        std::make_unique<KernelCollector>(ci, generator, wantedKernels(options_), diags_, result_, prefixPch_));
    if (auto wanted = wantedKernels(options_)) {
      consumers.push_back(std::make_unique<UnwantedInstantiations>(*wanted));
      consumers.push_back(std::make_unique<KernelCodeFilter>(std::move(codegen), std::move(*wanted)));
    }
    else
      consumers.push_back(std::move(codegen));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  CollectingDiagnostics& diags_;
  const CompileOptions& options_;
  CompileResult& result_;
  std::string prefixPch_;
};

// Parses and checks the file and describes its kernels and function constants; no code.
class MslListingAction : public clang::ASTFrontendAction {
 public:
  MslListingAction(CollectingDiagnostics& diags, CompileResult& result, std::string prefixPch)
      : diags_(diags), result_(result), prefixPch_(std::move(prefixPch)) {}

 protected:
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    addPreprocessorHooks(ci);
    return ASTFrontendAction::BeginSourceFileAction(ci);
  }
  void ExecuteAction() override {
    if (!prefixPch_.empty()) restoreRelativeLineNames(getCompilerInstance().getSourceManager());
    ASTFrontendAction::ExecuteAction();
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(makeStdlibBoundaryCheck(ci, kHeaderRoot));
    consumers.push_back(std::make_unique<KernelCollector>(ci, nullptr, std::set<std::string>(), diags_, result_, prefixPch_));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  CollectingDiagnostics& diags_;
  CompileResult& result_;
  std::string prefixPch_;
};

// The function constants of one compilation, as a header the rewritten declarations read.
std::string functionConstantsHeader(const std::map<unsigned, double>& values) {
  std::string h = "#pragma once\nnamespace metal {\nnamespace __mslsim_fc {\n"
                  "struct entry { unsigned index; long double value; };\n"
                  "constexpr entry table[] = {";
  for (auto& [index, value] : values) {
    char text[64];
    std::snprintf(text, sizeof text, "{%uu, %.17gL}, ", index, value);
    h += text;
  }
  h += "{~0u, 0.0L}};\n"
       "constexpr bool defined(unsigned n) {\n"
       "  for (const entry& e : table) if (e.index == n) return true;\n"
       "  return false;\n}\n"
       "template <class T> struct plain { typedef T type; };\n"
       "template <class T> struct plain<const T> { typedef T type; };\n"
       "template <class T> constexpr typename plain<T>::type value(unsigned n) {\n"
       "  for (const entry& e : table) if (e.index == n) return static_cast<typename plain<T>::type>(e.value);\n"
       "  return typename plain<T>::type();\n}\n"
       "}  // namespace __mslsim_fc\n}  // namespace metal\n";
  return h;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> embeddedHeaders() {
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (auto& [name, contents] : stdlibHeaders()) {
    std::string path = std::string(kHeaderRoot) + "/" + name;
    fs->addFile(path, 0, llvm::MemoryBuffer::getMemBuffer(contents, path));
  }
  fs->addFile(std::string(kHeaderRoot) + "/MetalPerformancePrimitives/MetalPerformancePrimitives.h", 0,
              llvm::MemoryBuffer::getMemBuffer("#pragma once\n"));
  fs->addFile(std::string(kHeaderRoot) + "/metal_raytracing", 0, llvm::MemoryBuffer::getMemBuffer("#pragma once\n"));
  // What PrecompiledStdlib precompiles (a translation unit using it must see the same file).
  fs->addFile(std::string(kHeaderRoot) + "/" + kStdlibPchHeader, 0,
              llvm::MemoryBuffer::getMemBuffer("#include <__mslsim/prelude.h>\n#include <metal_stdlib>\n"));
  return fs;
}

// The arguments every translation unit shares (target, language, warnings, fast math), before
// its includes, defines and file.
std::vector<std::string> commonArguments(const CompileOptions& options) {
  // Code generation targets this machine (the JIT runs here); an unrecognised CPU model gets the
  // baseline with the features the host reports.
  std::string cpu = llvm::sys::getHostCPUName().str();
  if (cpu == "generic") cpu = "x86-64";
  std::vector<std::string> args = {
      "-triple", llvm::sys::getProcessTriple(), "-target-cpu", cpu,
      "-x", "c++", "-std=c++17", "-O2", "-disable-llvm-passes", "-fno-rtti",
      "-fno-threadsafe-statics", "-ffreestanding",
      // Swizzles are properties (`__declspec(property)`, frontend/include/metal/__mslsim/vec.h).
      "-fdeclspec",
      // Large thread-private arrays touch the stack page by page, so an overflow hits the fiber's
      // guard page (reported) instead of landing in another thread's stack.
      "-fstack-clash-protection", "-ffloat16-excess-precision=none",
      // MSL code spins on memory other threads write, and a kernel that loops for ever must end
      // as a `timeout` at its loop: C++'s forward-progress rule would let Clang delete the loop.
      "-fno-finite-loops",
      // A precompiled header instantiates what it instantiates explicitly (MLX's headers do, e.g.
      // its simd and math functions for each type) once, not in every translation unit using it.
      "-fpch-instantiate-templates",
      "-ffp-contract=off",
      // MSL §8.6: a float converts to an integer with saturation and NaN gives 0, which is what
      // llvm.fpto[su]i.sat does; plain fptosi leaves both undefined.
      "-fno-strict-float-cast-overflow", "-nostdsysteminc", "-nobuiltininc", "-isystem", kHeaderRoot,
      "-Wno-ignored-attributes",
      "-Wno-duplicate-decl-specifier",  // `const constant T&` is `const const T&` here
      // A library compiled unspecialised has its function constants at zero; divisions by them
      // are not the program's mistakes (Metal refuses a pipeline whose constants are unset).
      "-Wno-division-by-zero",
      // GNU range designators (`{ [0 ... N-1] = 0.0f }`) are accepted by Apple's compiler; ggml uses them.
      "-Wno-c99-designator",
      "-ferror-limit", std::to_string(CollectingDiagnostics::kErrorLimit), "-fno-caret-diagnostics", "-fmessage-length=0"};
  if (options.fastMath) {
    for (const char* a : {"-ffast-math", "-menable-no-infs", "-menable-no-nans",
                          "-fapprox-func", "-funsafe-math-optimizations", "-fno-signed-zeros",
                          "-mreassociate", "-freciprocal-math", "-ffp-contract=fast"})
      args.push_back(a);
  }
  llvm::StringMap<bool> features;
  if (llvm::sys::getHostCPUFeatures(features))
    for (auto& f : features) {
      args.push_back("-target-feature");
      args.push_back((f.second ? "+" : "-") + f.first().str());
    }
  return args;
}

// Sets up `ci` for `args` over `fs` with `diagnostics`; false (and the errors reported) if Clang
// refuses the arguments.
bool prepareInstance(clang::CompilerInstance& ci, const std::vector<std::string>& args,
                     clang::DiagnosticConsumer& diagnostics, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs) {
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  ci.createDiagnostics(&diagnostics, /*ShouldOwnClient=*/false);
  if (!clang::CompilerInvocation::CreateFromArgs(ci.getInvocation(), argv, ci.getDiagnostics())) return false;
  // Again, now that the invocation holds the -W options and the error limit: the engine made
  // before it had the defaults.
  ci.createDiagnostics(&diagnostics, /*ShouldOwnClient=*/false);
  // As for divisions by an unspecialised function constant (above): a `switch` over one has no
  // matching case (ggml's flash attention, once per instantiation). The warning has no -W flag.
  ci.getDiagnostics().setSeverity(clang::diag::warn_missing_case_for_condition, clang::diag::Severity::Ignored,
                                  clang::SourceLocation());
  // MSL has no double: `1.0` is a float, as in OpenCL.
  ci.getInvocation().getLangOpts()->SinglePrecisionConstants = true;
  ci.createFileManager(std::move(fs));
  ci.createSourceManager(ci.getFileManager());
  return true;
}

// Where precompiled headers are kept between processes (set by the runtime: the compile cache's
// directory), asked at each use.
std::mutex& placeMutex() {
  static std::mutex m;
  return m;
}
std::function<PrecompiledStdlibPlace()>& placeFunction() {
  static std::function<PrecompiledStdlibPlace()> f;
  return f;
}
PrecompiledStdlibPlace precompiledPlace() {
  std::function<PrecompiledStdlibPlace()> f;
  {
    std::lock_guard<std::mutex> lock(placeMutex());
    f = placeFunction();
  }
  return f ? f() : PrecompiledStdlibPlace();
}

// A precompiled header kept beside the compile cache was used now: the cache removes the least
// recently used files first when it trims itself.
void markUsed(const std::string& file) { ::utimensat(AT_FDCWD, file.c_str(), nullptr, 0); }

// Writes `bytes` to `file` under a temporary name and renames it into place, so that a concurrent
// reader sees all of it or nothing.
void publishFile(const std::string& file, llvm::StringRef bytes) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(file));
  // A dot-file until it is complete (the cache's trim removes only old ones of those), named by
  // process and thread: two writers never share it.
  std::string temporary = (llvm::sys::path::parent_path(file) + "/." + llvm::sys::path::filename(file) + "." +
                           std::to_string(llvm::sys::Process::getProcessId()) + "-" +
                           std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())))
                              .str();
  std::error_code ec;
  {
    llvm::raw_fd_ostream out(temporary, ec);
    if (!ec) out << bytes;
  }
  if (ec || llvm::sys::fs::rename(temporary, file)) llvm::sys::fs::remove(temporary);
}

// An action that writes its translation unit as a precompiled header to memory: what the
// standard library's and a source prefix's headers are both built with.
class PchBuildingAction : public clang::ASTFrontendAction {
 public:
  // The header's bytes once the action has run, or nullopt if it did not complete.
  std::optional<std::string> bytes() const {
    if (!buffer_->IsComplete) return std::nullopt;
    return std::string(buffer_->Data.begin(), buffer_->Data.end());
  }

 protected:
  clang::TranslationUnitKind getTranslationUnitKind() override { return clang::TU_Prefix; }
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getLangOpts().CompilingPCH = true;
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<clang::PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), /*OutputFile=*/"",
                                                 /*isysroot=*/"", buffer_, llvm::ArrayRef<std::shared_ptr<clang::ModuleFileExtension>>(),
                                                 /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false);
  }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_ = std::make_shared<clang::PCHBuffer>();
};

// The prelude and <metal_stdlib> as a precompiled header: parsing them took 100-150 ms of every
// compilation (more than most kernels themselves; MLX compiles thousands). Built once per process
// for each set of common arguments, in memory; a translation unit that includes <metal_stdlib>
// (almost every one) starts from it. The standard library then comes before the user's text
// rather than at its #include line: it reads no user macro, so the declarations are the same.
class PrecompiledStdlib {
 public:
  struct Built {
    std::string bytes;
    std::string digest;  // of the bytes: part of the name of every prefix precompiled on top of them
  };

  // The precompiled header for `common`, or null if it cannot be built (then the text is parsed).
  static std::shared_ptr<const Built> get(const std::vector<std::string>& common) {
    std::string key;
    for (auto& a : common) key += a + '\0';
    std::lock_guard<std::mutex> lock(mutex());
    auto [it, inserted] = built().emplace(key, Entry());
    Entry& entry = it->second;
    // Named by everything its bytes depend on: Clang, the embedded headers, the arguments.
    PrecompiledStdlibPlace place = precompiledPlace();
    std::string dir = place.directory;
    std::string file;
    if (!dir.empty()) {
      // The build too: the attribute plugins compiled into mslsim annotate its declarations.
      std::string identity = place.build + '\0' + frontendFingerprint() + '\0' + key;
      file = dir + "/stdlib-" + llvm::utohexstr(llvm::xxHash64(identity)) + ".pch";
    }
    if (inserted && !file.empty())
      if (auto stored = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false))
        if ((*stored)->getBuffer().startswith("CPCH")) {
          entry.bytes = withDigest((*stored)->getBuffer().str());
          entry.storedIn = file;
          markUsed(file);
        }
    if (inserted && !entry.bytes) entry.bytes = build(common);
    // Stored once per directory (the directory may be set after the first compile).
    if (entry.bytes && !file.empty() && entry.storedIn != file) {
      publishFile(file, entry.bytes->bytes);
      entry.storedIn = file;
    }
    return entry.bytes;
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  struct Entry {
    std::shared_ptr<const Built> bytes;  // null: it could not be built
    std::string storedIn;                // the file it was read from or written to
  };
  static std::map<std::string, Entry>& built() {
    static std::map<std::string, Entry> b;
    return b;
  }
  static std::shared_ptr<const Built> withDigest(std::string bytes) {
    auto built = std::make_shared<Built>();
    built->digest = llvm::utohexstr(llvm::xxHash64(bytes));
    built->bytes = std::move(bytes);
    return built;
  }

  static std::shared_ptr<const Built> build(std::vector<std::string> args) {
    auto fs = embeddedHeaders();
    std::string header = std::string(kHeaderRoot) + "/" + kStdlibPchHeader;
    for (const char* a : {"-x", "c++-header"}) args.push_back(a);
    args.push_back(header);
    clang::IgnoringDiagConsumer ignore;
    clang::CompilerInstance ci;
    if (!prepareInstance(ci, args, ignore, fs)) return nullptr;
    PchBuildingAction action;
    std::optional<std::string> bytes;
    if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred() || !(bytes = action.bytes()))
      return nullptr;
    return withDigest(std::move(*bytes));
  }
};


// MLX's JIT libraries are ~75 KB of the same headers followed by a few lines that instantiate
// kernels (the C++ suite's 357 library sources have 27 distinct prefixes), and parsing the headers
// was most of every compile, twice per library (its listing, then each pipeline's code). The text
// before the first kernel (see SourcePrefix) is precompiled on top of the standard library's PCH,
// named by everything its bytes depend on, kept in memory and beside the compile cache; a
// translation unit is then the rest of the file. Both parts start with a line directive, so every
// position is the one the whole file gives. What only the prefix's parse saw is kept with it: its
// warnings and notes, and its function constants. A prefix Clang does not accept on its own, or
// that declares a kernel, is remembered as refused and the whole file is parsed.
class PrecompiledPrefix : public PchBuildingAction {
 public:
  struct Built {
    std::string bytes;
    std::vector<Diagnostic> diagnostics;
    std::vector<FunctionConstantInfo> functionConstants;
  };

  // The prefix `text`, served as the file `path`, built with `args` (all but the input) over `fs`;
  // `identity`: what else its bytes depend on (the PCH under it, the constants header's text).
  // Null when refused.
  static std::shared_ptr<const Built> get(const std::vector<std::string>& args, const std::string& path,
                                          const std::string& text, const std::string& identity,
                                          RewritingFileSystem& fs) {
    PrecompiledStdlibPlace place = precompiledPlace();
    std::string key = place.build + '\0' + frontendFingerprint() + '\0' + identity + '\0' + path + '\0';
    for (auto& a : args) key += a + '\0';
    key += text;
    auto digest = llvm::BLAKE3::hash<16>(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    std::string name = llvm::toHex(digest, /*LowerCase=*/true);

    std::lock_guard<std::mutex> lock(mutex());
    if (auto kept = remembered(name)) return *kept;
    std::string file = place.directory.empty() ? "" : place.directory + "/prefix-" + name + ".pch";
    if (!file.empty())
      if (auto stored = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
        std::optional<std::shared_ptr<const Built>> read = deserialise((*stored)->getBuffer());
        if (read) {
          markUsed(file);
          return remember(name, *read);
        }
      }
    std::shared_ptr<const Built> built = build(args, path, fs);
    if (!file.empty()) publishFile(file, built ? serialise(*built) : std::string(kRefused));
    return remember(name, built);
  }

 private:
  static constexpr llvm::StringLiteral kMagic = "MSLSIM PRECOMPILED PREFIX 2\n";
  static constexpr llvm::StringLiteral kRefused = "MSLSIM REFUSED PREFIX 1\n";
  static constexpr size_t kKeptInMemory = 32;  // ~1-4 MB each

  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  using Kept = std::list<std::pair<std::string, std::shared_ptr<const Built>>>;
  static Kept& kept() {
    static Kept k;
    return k;
  }
  static std::optional<std::shared_ptr<const Built>> remembered(const std::string& name) {
    for (auto it = kept().begin(); it != kept().end(); ++it)
      if (it->first == name) {
        kept().splice(kept().begin(), kept(), it);
        return kept().front().second;
      }
    return std::nullopt;
  }
  static std::shared_ptr<const Built> remember(const std::string& name, std::shared_ptr<const Built> built) {
    kept().emplace_front(name, built);
    if (kept().size() > kKeptInMemory) kept().pop_back();
    return built;
  }

  static std::shared_ptr<const Built> build(std::vector<std::string> args, const std::string& path,
                                            RewritingFileSystem& fs) {
    for (const char* a : {"-working-directory", kPrefixWorkingDirectory, "-x", "c++-header"}) args.push_back(a);
    args.push_back(path);
    auto built = std::make_shared<Built>();
    CollectingDiagnostics diagnostics(fs, built->diagnostics);
    clang::CompilerInstance ci;
    if (!prepareInstance(ci, args, diagnostics, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(&fs))) return nullptr;
    CompileResult described;
    PrecompiledPrefix action(diagnostics, described);
    bool executed = ci.ExecuteAction(action);
    ci.getDiagnostics().getClient()->finish();
    std::optional<std::string> bytes = action.bytes();
    if (!executed || ci.getDiagnostics().hasErrorOccurred() || !bytes || !described.declaredKernels.empty())
      return nullptr;
    built->bytes = std::move(*bytes);
    built->functionConstants = std::move(described.functionConstants);
    return built;
  }

  PrecompiledPrefix(CollectingDiagnostics& diags, CompileResult& described) : diags_(diags), described_(described) {}

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    addPreprocessorHooks(ci);
    return PchBuildingAction::BeginSourceFileAction(ci);
  }
  // The prefix described (its function constants; a kernel refuses it) as it is written.
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(makeStdlibBoundaryCheck(ci, kHeaderRoot));
    consumers.push_back(std::make_unique<KernelCollector>(ci, nullptr, std::set<std::string>(), diags_, described_));
    consumers.push_back(PchBuildingAction::CreateASTConsumer(ci, file));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

  // On disk: the magic line, the warnings and function constants as length-prefixed fields, the PCH.
  static void put(std::string& out, const std::string& field) { out += std::to_string(field.size()) + ':' + field; }
  static bool take(llvm::StringRef& in, std::string& field) {
    size_t colon = in.find(':');
    size_t length;
    if (colon == llvm::StringRef::npos || in.take_front(colon).getAsInteger(10, length) ||
        in.size() < colon + 1 + length)
      return false;
    field = in.substr(colon + 1, length).str();
    in = in.drop_front(colon + 1 + length);
    return true;
  }
  static bool take(llvm::StringRef& in, unsigned& number) {
    std::string field;
    return take(in, field) && !llvm::StringRef(field).getAsInteger(10, number);
  }

  static std::string serialise(const Built& built) {
    std::string out = kMagic.str();
    put(out, std::to_string(built.diagnostics.size()));
    for (auto& d : built.diagnostics) {
      put(out, std::to_string(int(d.severity)));
      put(out, d.where.file);
      put(out, std::to_string(d.where.line));
      put(out, std::to_string(d.where.column));
      put(out, d.message);
      put(out, d.sourceLine);
    }
    put(out, std::to_string(built.functionConstants.size()));
    for (auto& c : built.functionConstants) {
      put(out, c.name);
      put(out, std::to_string(c.index));
      put(out, c.type);
      put(out, c.canonicalType);
      put(out, c.location.file);
      put(out, std::to_string(c.location.line));
      put(out, std::to_string(c.location.column));
    }
    return out + built.bytes;
  }

  // Null for a prefix refused before; nullopt when the file is not one of ours (then it is rebuilt).
  static std::optional<std::shared_ptr<const Built>> deserialise(llvm::StringRef in) {
    if (in == kRefused) return std::shared_ptr<const Built>();
    if (!in.consume_front(kMagic)) return std::nullopt;
    auto built = std::make_shared<Built>();
    unsigned count, severity;
    if (!take(in, count)) return std::nullopt;
    for (unsigned i = 0; i < count; ++i) {
      Diagnostic d;
      if (!take(in, severity) || !take(in, d.where.file) || !take(in, d.where.line) || !take(in, d.where.column) ||
          !take(in, d.message) || !take(in, d.sourceLine) || severity > unsigned(Diagnostic::Severity::Error))
        return std::nullopt;
      d.severity = Diagnostic::Severity(severity);
      built->diagnostics.push_back(std::move(d));
    }
    if (!take(in, count)) return std::nullopt;
    for (unsigned i = 0; i < count; ++i) {
      FunctionConstantInfo c;
      if (!take(in, c.name) || !take(in, c.index) || !take(in, c.type) || !take(in, c.canonicalType) || !take(in, c.location.file) ||
          !take(in, c.location.line) || !take(in, c.location.column))
        return std::nullopt;
      built->functionConstants.push_back(std::move(c));
    }
    if (!in.startswith("CPCH")) return std::nullopt;
    built->bytes = in.str();
    return built;
  }

  CollectingDiagnostics& diags_;
  CompileResult& described_;
};

// Whether `text` has an `#include <metal_stdlib>` line (`# include  <metal_stdlib>` too).
bool hasStdlibInclude(llvm::StringRef text) {
  for (size_t at = text.find("<metal_stdlib>"); at != llvm::StringRef::npos; at = text.find("<metal_stdlib>", at + 1)) {
    llvm::StringRef before = text.take_front(at).rtrim(" \t");
    if (!before.consume_back("include")) continue;
    before = before.rtrim(" \t");
    if (before.consume_back("#") && (before.empty() || before.rtrim(" \t").empty() || before.rtrim(" \t").endswith("\n")))
      return true;
  }
  return false;
}

// Whether the translation unit includes <metal_stdlib> itself or through a preincluded header.
bool includesStdlib(const std::string& source, const CompileOptions& options) {
  if (hasStdlibInclude(source)) return true;
  for (auto& header : options.preincludes)
    for (unsigned i = 0; i < kEmbeddedHeaderCount; ++i)
      if (header == kEmbeddedHeaders[i].path && hasStdlibInclude(stdlibHeaders()[i].second)) return true;
  return false;
}

}  // namespace

void setPrecompiledStdlibPlace(std::function<PrecompiledStdlibPlace()> place) {
  std::lock_guard<std::mutex> lock(placeMutex());
  placeFunction() = std::move(place);
}

namespace {

// `"text"` as a string literal in a line directive.
std::string quotedForLineDirective(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + '"';
}

bool isEmbeddedHeader(const std::string& name) {
  for (unsigned i = 0; i < kEmbeddedHeaderCount; ++i)
    if (name == kEmbeddedHeaders[i].path) return true;
  return false;
}

// Runs the listing or the code generation for `mainFile` with `args` (all but the input).
void runFrontEnd(const std::string& mainFile, const std::string& mainPath, std::vector<std::string> args,
                 const std::string& prefixPch, const CompileOptions& options, RewritingFileSystem& fs,
                 CollectingDiagnostics& diagnostics, CompileResult& result) {
  args.insert(args.end(), {"-main-file-name", llvm::sys::path::filename(mainPath).str(), mainFile});
  clang::CompilerInstance ci;
  if (!prepareInstance(ci, args, diagnostics, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(&fs))) return;

  if (options.kernels && options.kernels->empty()) {
    MslListingAction action(diagnostics, result, prefixPch);
    bool executed = ci.ExecuteAction(action);
    ci.getDiagnostics().getClient()->finish();
    result.ok = executed && !ci.getDiagnostics().hasErrorOccurred();
    result.program.sources = fs.index();
    return;
  }
  auto context = std::make_unique<llvm::LLVMContext>();
  MslCodeGenAction action(context.get(), diagnostics, options, result, prefixPch);
  bool executed = ci.ExecuteAction(action);
  ci.getDiagnostics().getClient()->finish();
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!executed || !module || ci.getDiagnostics().hasErrorOccurred()) {
    result.program.kernels.clear();
    return;
  }
  result.ok = true;
  // Named after the user's file, not the part of it compiled (see compileFromPrefix).
  module->setModuleIdentifier(mainPath);
  module->setSourceFileName(mainPath);
  result.program.module = std::move(module);
  result.program.context = std::move(context);
  result.program.sources = fs.index();
}

// Makes the conversions in the files `fs` serves; false if there was none to make.
bool convertConditionalArms(RewritingFileSystem& fs, std::vector<ArmConversion> arms) {
  // From the end of each file to its start, so that offsets stay those the compiler reported; an
  // arm reported by several instantiations is converted once.
  std::sort(arms.begin(), arms.end(), [](const ArmConversion& a, const ArmConversion& b) {
    return std::tie(a.file, a.begin, a.end) > std::tie(b.file, b.begin, b.end);
  });
  arms.erase(std::unique(arms.begin(), arms.end(),
                         [](const ArmConversion& a, const ArmConversion& b) {
                           return a.file == b.file && a.begin == b.begin && a.end == b.end;
                         }),
             arms.end());
  bool converted = false;
  for (const ArmConversion& arm : arms)
    if (fs.insertText(arm.file, arm.end, arm.after) && fs.insertText(arm.file, arm.begin, arm.before)) converted = true;
  return converted;
}

// The compilation of `source` as `mainPath` from its precompiled prefix, if it has one that is
// accepted; nullopt otherwise.
std::optional<CompileResult> compileFromPrefix(const std::string& mainPath, const std::string& source,
                                               const CompileOptions& options,
                                               const std::vector<std::string>& common,
                                               const PrecompiledStdlib::Built& stdlib,
                                               llvm::vfs::InMemoryFileSystem& headers) {
  // A user header's text would be part of the prefix without being part of its name; -I
  // directories are searched before the embedded headers.
  if (!options.includeDirs.empty()) return std::nullopt;
  std::optional<SourcePrefix> split = precompilablePrefix(source, isEmbeddedHeader);
  if (!split) return std::nullopt;

  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(&headers);
  auto fs = llvm::makeIntrusiveRefCnt<RewritingFileSystem>(overlay);
  fs->addVirtualFile(mainPath, source, options.kernels);
  const std::string& rewritten = fs->find(mainPath)->rewritten.text;
  size_t cut = 0;  // the rewriter keeps lines: the prefix is as many lines of the rewritten text
  for (unsigned line = 0; line < split->lines; ++line) cut = rewritten.find('\n', cut) + 1;

  // The precompiled header refers to the prefix by its path, made absolute: one path for every
  // prefix of every process (the name is made from the text).
  std::string prefixPath = "/__mslsim/precompiled-prefix";
  std::string restPath = mainPath + "~mslsim-rest";
  std::string prefixText = "#line 1 " + quotedForLineDirective(mainPath) + "\n" + rewritten.substr(0, cut);
  fs->addVerbatimFile(prefixPath, prefixText);
  fs->addVerbatimFile(restPath, "#line " + std::to_string(split->presumedLine) + " " +
                                    quotedForLineDirective(split->presumedName.empty() ? mainPath : split->presumedName) +
                                    "\n" + rewritten.substr(cut));

  // The constants header goes into the prefix only when the prefix declares function constants;
  // then the constants' values name it too.
  std::string constantsHeader = std::string(kHeaderRoot) + "/__mslsim/function_constants.h";
  bool prefixHasConstants = llvm::StringRef(source).take_front(split->bytes).contains("function_constant");
  std::string stdlibPch = std::string(kHeaderRoot) + "/__mslsim/stdlib.pch";
  std::vector<std::string> buildArgs = common;
  buildArgs.insert(buildArgs.end(), {"-include-pch", stdlibPch});
  if (prefixHasConstants) buildArgs.insert(buildArgs.end(), {"-include", constantsHeader});
  for (auto& header : options.preincludes) buildArgs.insert(buildArgs.end(), {"-include", std::string(kHeaderRoot) + "/" + header});
  for (auto& d : options.defines) buildArgs.insert(buildArgs.end(), {"-D", d});
  std::string identity = stdlib.digest + '\0' + (prefixHasConstants ? functionConstantsHeader(options.functionConstants) : "");
  std::shared_ptr<const PrecompiledPrefix::Built> prefix =
      PrecompiledPrefix::get(buildArgs, prefixPath, prefixText, identity, *fs);
  if (!prefix) return std::nullopt;

  CompileResult result;
  result.startedFromPrefix = true;
  CollectingDiagnostics diagnostics(*fs, result.diagnostics);
  if (const RewrittenFile* f = fs->find(mainPath))
    for (auto& w : f->rewritten.warnings)
      result.diagnostics.push_back({Diagnostic::Severity::Warning, {mainPath, w.line, w.column}, w.message,
                                    SourceIndex::lineOfText(source, w.line)});
  result.diagnostics.insert(result.diagnostics.end(), prefix->diagnostics.begin(), prefix->diagnostics.end());
  result.functionConstants = prefix->functionConstants;

  std::string prefixPch = std::string(kHeaderRoot) + "/__mslsim/prefix.pch";
  headers.addFile(prefixPch, 0, llvm::MemoryBuffer::getMemBuffer(prefix->bytes, prefixPch, /*RequiresNullTerminator=*/false));
  std::vector<std::string> args = common;
  args.insert(args.end(), {"-include-pch", prefixPch});
  if (options.lineTables) args.insert(args.end(), {"-debug-info-kind=line-tables-only", "-dwarf-version=5"});
  if (!prefixHasConstants) args.insert(args.end(), {"-include", constantsHeader});
  for (auto& d : options.defines) args.insert(args.end(), {"-D", d});
  runFrontEnd(restPath, mainPath, args, prefixPch, options, *fs, diagnostics, result);
  // An error is reported as the whole file's parse reports it (its count, its notes).
  if (!result.ok) return std::nullopt;
  return result;
}

}  // namespace

CompileResult compileMsl(const std::string& path, const std::string& source,
                         const CompileOptions& options) {
  // Diagnostics name the main file as the user did.
  std::string mainPath = path;

  auto headers = embeddedHeaders();
  headers->addFile(std::string(kHeaderRoot) + "/__mslsim/function_constants.h", 0,
                   llvm::MemoryBuffer::getMemBufferCopy(functionConstantsHeader(options.functionConstants)));
  std::vector<std::string> common = commonArguments(options);
  std::shared_ptr<const PrecompiledStdlib::Built> stdlib =
      includesStdlib(source, options) ? PrecompiledStdlib::get(common) : nullptr;
  std::string stdlibPch = std::string(kHeaderRoot) + "/__mslsim/stdlib.pch";
  if (stdlib) {
    headers->addFile(stdlibPch, 0, llvm::MemoryBuffer::getMemBuffer(stdlib->bytes, stdlibPch, /*RequiresNullTerminator=*/false));
    if (options.precompiledPrefix)
      if (std::optional<CompileResult> result = compileFromPrefix(mainPath, source, options, common, *stdlib, *headers))
        return std::move(*result);
  }

  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(headers);
  auto fs = llvm::makeIntrusiveRefCnt<RewritingFileSystem>(overlay);
  fs->addVirtualFile(mainPath, source, options.kernels);

  std::vector<std::string> args = common;
  if (stdlib)
    args.insert(args.end(), {"-include-pch", stdlibPch});
  else
    args.insert(args.end(), {"-include", std::string(kHeaderRoot) + "/__mslsim/prelude.h"});
  // Code generation only: the same precompiled header serves both.
  if (options.lineTables) args.insert(args.end(), {"-debug-info-kind=line-tables-only", "-dwarf-version=5"});
  args.insert(args.end(), {"-include", std::string(kHeaderRoot) + "/__mslsim/function_constants.h"});
  for (auto& header : options.preincludes) {
    args.push_back("-include");
    args.push_back(std::string(kHeaderRoot) + "/" + header);
  }
  for (auto& dir : options.includeDirs) {
    args.push_back("-I");
    args.push_back(dir);
  }
  for (auto& d : options.defines) {
    args.push_back("-D");
    args.push_back(d);
  }
  // A bfloat conditional Clang calls ambiguous is compiled again with its integer arm converted
  // (ConditionalArms.h); a second round finds those only other instantiations reach.
  constexpr int kRounds = 3;
  for (int round = 1;; ++round) {
    CompileResult result;
    CollectingDiagnostics diagnostics(*fs, result.diagnostics);
    // Rewriter warnings (unsupported attributes) come first, in source order.
    if (const RewrittenFile* f = fs->find(mainPath))
      for (auto& w : f->rewritten.warnings)
        result.diagnostics.push_back({Diagnostic::Severity::Warning,
                                      {path, w.line, w.column}, w.message, SourceIndex::lineOfText(source, w.line)});
    runFrontEnd(mainPath, mainPath, args, "", options, *fs, diagnostics, result);
    if (result.ok || round == kRounds || !convertConditionalArms(*fs, diagnostics.armConversions())) return result;
  }
}

}  // namespace mslsim
