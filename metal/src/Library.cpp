// Code: compile options, libraries (MSL source compiled by mslsim), functions specialised by
// function constants, and compute pipeline states (a kernel's code, generated when the pipeline is
// made and cached per process and on disk, so the same specialisation twice costs nothing).
#include "Objects.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mslsim::metal {

namespace {

constexpr const char* kLibraryErrorDomain = "MTLLibraryErrorDomain";

std::string describeCompileError(const mslsim::CompileError& e) {
  std::string text;
  for (auto& d : e.diagnostics())
    if (d.severity == mslsim::Diagnostic::Severity::Error) text += mslsim::formatDiagnostic(d) + "\n";
  if (text.empty()) text = e.what();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Runs `compile`, turning mslsim's compile errors into the NS::Error Metal gives (and null).
template <class Compile>
auto compiling(NS::Error** error, Compile&& compile) -> decltype(compile()) {
  try {
    return compile();
  } catch (const mslsim::CompileError& e) {
    return fail(error, kLibraryErrorDomain, MTL::LibraryErrorCompileFailure, describeCompileError(e));
  } catch (const mslsim::Error& e) {
    return fail(error, kLibraryErrorDomain, MTL::LibraryErrorInternal, e.what());
  }
}

// Calls an asynchronous variant's handler with what the synchronous one made, then lets it go.
template <class Made>
void handOver(Made* made, NS::Error* error, void* handler, void (*invoke)(void*, Made*, NS::Error*),
              void (*destroy)(void*)) {
  PlainCallback<Made*, NS::Error*>(handler, invoke, destroy)(made, error);
  releaseIfAny(made);
}

// Parses and checks one translation unit, listing its kernels (no code yet).
std::shared_ptr<const LibrarySource> parseSource(const std::string& name, const std::string& text,
                                                 mslsim::BuildOptions options) {
  options.kernels = std::vector<std::string>{};
  mslsim::Library listing = mslsim::Library::compileSource(name, text, options);
  auto source = std::make_shared<LibrarySource>();
  source->name = name;
  source->text = text;
  source->options = options;
  source->kernels = listing.kernelNames();
  return source;
}

mslsim::BuildOptions buildOptions(MTL::Device* d, const CompileOptionsObject* options) {
  mslsim::BuildOptions o;
  o.checked = device(d).checks.needsInstrumentation();
  o.tiers = device(d).tiers;
  CompileOptionsObject defaults;
  const CompileOptionsObject& c = options ? *options : defaults;
  o.fastMath = c.mathMode == MTL::MathModeFast;
  if (c.macros)
    for (auto& [key, value] : static_cast<const DictionaryObject*>(c.macros.get())->entries) {
      std::string name = textOf(static_cast<const NS::String*>(key));
      std::string v = textOf(value->description());
      o.defines.push_back(v.empty() ? name : name + "=" + v);
    }
  return o;
}

LibraryObject* makeLibrary(MTL::Device* d, std::vector<std::shared_ptr<const LibrarySource>> sources) {
  auto* l = new LibraryObject();
  l->device = d;
  l->sources = std::move(sources);
  return l;
}

// Converts one constant to the double mslsim::BuildOptions carries; false for a type it cannot.
bool constantValue(const void* value, MTL::DataType type, double& out) {
  switch (type) {
    // A byte, not a C++ bool: any nonzero byte is true (reading 2 through a bool is undefined).
    case MTL::DataTypeBool: out = *static_cast<const uint8_t*>(value) ? 1 : 0; return true;
    case MTL::DataTypeChar: out = *static_cast<const int8_t*>(value); return true;
    case MTL::DataTypeUChar: out = *static_cast<const uint8_t*>(value); return true;
    case MTL::DataTypeShort: out = *static_cast<const int16_t*>(value); return true;
    case MTL::DataTypeUShort: out = *static_cast<const uint16_t*>(value); return true;
    case MTL::DataTypeInt: out = *static_cast<const int32_t*>(value); return true;
    case MTL::DataTypeUInt: out = *static_cast<const uint32_t*>(value); return true;
    case MTL::DataTypeLong: out = double(*static_cast<const int64_t*>(value)); return true;
    case MTL::DataTypeULong: out = double(*static_cast<const uint64_t*>(value)); return true;
    case MTL::DataTypeFloat: out = *static_cast<const float*>(value); return true;
    case MTL::DataTypeHalf: out = float(*static_cast<const _Float16*>(value)); return true;
    case MTL::DataTypeBFloat: {
      uint32_t bits = uint32_t(*static_cast<const uint16_t*>(value)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out = f;
      return true;
    }
    default: return false;
  }
}

unsigned dataTypeSize(MTL::DataType type) {
  switch (type) {
    case MTL::DataTypeBool: case MTL::DataTypeChar: case MTL::DataTypeUChar: return 1;
    case MTL::DataTypeShort: case MTL::DataTypeUShort: case MTL::DataTypeHalf: case MTL::DataTypeBFloat: return 2;
    case MTL::DataTypeLong: case MTL::DataTypeULong: return 8;
    default: return 4;
  }
}

// The scalar types a function constant's value may have: the name the API gives it, and the type a
// constant declared with it has once aliases are resolved (FunctionConstantInfo::canonicalType).
struct ConstantType {
  MTL::DataType type;
  const char* name;
  const char* declared;
};
constexpr ConstantType kConstantTypes[] = {
    {MTL::DataTypeBool, "MTLDataTypeBool", "bool"},        {MTL::DataTypeChar, "MTLDataTypeChar", "signed char"},
    {MTL::DataTypeUChar, "MTLDataTypeUChar", "unsigned char"}, {MTL::DataTypeShort, "MTLDataTypeShort", "short"},
    {MTL::DataTypeUShort, "MTLDataTypeUShort", "unsigned short"}, {MTL::DataTypeInt, "MTLDataTypeInt", "int"},
    {MTL::DataTypeUInt, "MTLDataTypeUInt", "unsigned int"}, {MTL::DataTypeLong, "MTLDataTypeLong", "long"},
    {MTL::DataTypeULong, "MTLDataTypeULong", "unsigned long"}, {MTL::DataTypeHalf, "MTLDataTypeHalf", "_Float16"},
    {MTL::DataTypeFloat, "MTLDataTypeFloat", "float"},     {MTL::DataTypeBFloat, "MTLDataTypeBFloat", "metal::bfloat"},
};

std::string dataTypeName(MTL::DataType type) {
  for (const ConstantType& t : kConstantTypes)
    if (t.type == type) return t.name;
  return "MTLDataType " + std::to_string(unsigned(type));
}

// Whether a value given as `type` suits a constant declared with `canonical` (a plain `char`, as
// MSL's char, takes MTLDataTypeChar too). A constant of a type not in the table (a vector) is not
// checked.
bool isValueTypeOf(MTL::DataType type, const std::string& canonical) {
  for (const ConstantType& t : kConstantTypes)
    if (canonical == t.declared || (canonical == "char" && t.type == MTL::DataTypeChar)) return t.type == type;
  return true;
}

MTL::Function* newFunction(const MTL::Library* library, const std::string& name,
                           const FunctionConstantValuesObject* constants, NS::Error** error) {
  auto* l = static_cast<const LibraryObject*>(library);
  for (auto& source : l->sources)
    for (auto& kernel : source->kernels)
      if (kernel == name) {
        if (constants && !constants->byName.empty())
          return fail(error, kLibraryErrorDomain, MTL::LibraryErrorUnsupported,
                      "function '" + name + "': function constants set by name ('" + constants->byName.begin()->first +
                          "') are not supported by mslsim yet; set them by index");
        auto* f = new FunctionObject();
        f->library.reset(library);
        f->source = source;
        f->name = name;
        if (constants) f->constants = constants->byIndex, f->constantTypes = constants->typeByIndex;
        succeed(error);
        return f;
      }
  return fail(error, kLibraryErrorDomain, MTL::LibraryErrorFunctionNotFound,
              "Function " + name + " was not found in the library");
}

}  // namespace

CompileOptionsObject::CompileOptionsObject(const CompileOptionsObject& o)
    : mathMode(o.mathMode), floatingPointFunctions(o.floatingPointFunctions), languageVersion(o.languageVersion),
      logging(o.logging), preserveInvariance(o.preserveInvariance), macros(o.macros), libraryType(o.libraryType),
      installName(o.installName), optimizationLevel(o.optimizationLevel),
      maxTotalThreadsPerThreadgroup(o.maxTotalThreadsPerThreadgroup) {}

FunctionDescriptorObject::FunctionDescriptorObject(const FunctionDescriptorObject& o)
    : name(o.name), specializedName(o.specializedName), options(o.options) {
  if (o.constants) {
    NS::Object* copy = o.constants->copy();
    constants.reset(static_cast<MTL::FunctionConstantValues*>(copy));
    copy->release();
  }
}

}  // namespace mslsim::metal

using namespace mslsim::metal;

namespace MTL {

// --- Compile options ------------------------------------------------------------------------------

#define MSLSIM_SELF static_cast<CompileOptionsObject*>(this)
#define MSLSIM_CSELF static_cast<const CompileOptionsObject*>(this)
CompileOptions* CompileOptions::alloc() { return new CompileOptionsObject(); }
CompileOptions* CompileOptions::init() { return this; }
bool CompileOptions::fastMathEnabled() const { return MSLSIM_CSELF->mathMode == MathModeFast; }
void CompileOptions::setFastMathEnabled(bool on) { MSLSIM_SELF->mathMode = on ? MathModeFast : MathModeSafe; }
MathMode CompileOptions::mathMode() const { return MSLSIM_CSELF->mathMode; }
void CompileOptions::setMathMode(MathMode m) { MSLSIM_SELF->mathMode = m; }
MathFloatingPointFunctions CompileOptions::mathFloatingPointFunctions() const { return MSLSIM_CSELF->floatingPointFunctions; }
void CompileOptions::setMathFloatingPointFunctions(MathFloatingPointFunctions f) { MSLSIM_SELF->floatingPointFunctions = f; }
LanguageVersion CompileOptions::languageVersion() const { return MSLSIM_CSELF->languageVersion; }
void CompileOptions::setLanguageVersion(LanguageVersion v) { MSLSIM_SELF->languageVersion = v; }
bool CompileOptions::enableLogging() const { return MSLSIM_CSELF->logging; }
void CompileOptions::setEnableLogging(bool on) { MSLSIM_SELF->logging = on; }
NS::Dictionary* CompileOptions::preprocessorMacros() const { return MSLSIM_CSELF->macros.get(); }
void CompileOptions::setPreprocessorMacros(const NS::Dictionary* m) { MSLSIM_SELF->macros.reset(m); }
LibraryType CompileOptions::libraryType() const { return MSLSIM_CSELF->libraryType; }
void CompileOptions::setLibraryType(LibraryType t) { MSLSIM_SELF->libraryType = t; }
NS::String* CompileOptions::installName() const { return MSLSIM_CSELF->installName.get(); }
void CompileOptions::setInstallName(const NS::String* n) { MSLSIM_SELF->installName.reset(n); }
bool CompileOptions::preserveInvariance() const { return MSLSIM_CSELF->preserveInvariance; }
void CompileOptions::setPreserveInvariance(bool p) { MSLSIM_SELF->preserveInvariance = p; }
LibraryOptimizationLevel CompileOptions::optimizationLevel() const { return MSLSIM_CSELF->optimizationLevel; }
void CompileOptions::setOptimizationLevel(LibraryOptimizationLevel l) { MSLSIM_SELF->optimizationLevel = l; }
NS::UInteger CompileOptions::maxTotalThreadsPerThreadgroup() const { return MSLSIM_CSELF->maxTotalThreadsPerThreadgroup; }
void CompileOptions::setMaxTotalThreadsPerThreadgroup(NS::UInteger n) { MSLSIM_SELF->maxTotalThreadsPerThreadgroup = n; }
#undef MSLSIM_SELF
#undef MSLSIM_CSELF

// --- Function constants and descriptors -----------------------------------------------------------

FunctionConstantValues* FunctionConstantValues::alloc() { return new FunctionConstantValuesObject(); }
FunctionConstantValues* FunctionConstantValues::init() { return this; }
void FunctionConstantValues::setConstantValue(const void* value, DataType type, NS::UInteger index) {
  double v = 0;
  if (constantValue(value, type, v)) {
    static_cast<FunctionConstantValuesObject*>(this)->byIndex[unsigned(index)] = v;
    static_cast<FunctionConstantValuesObject*>(this)->typeByIndex[unsigned(index)] = type;
  }
  else  // remembered as unsupported: the pipeline made with it fails, naming the index
    static_cast<FunctionConstantValuesObject*>(this)->byName["#" + std::to_string(index) + " (vector or other non-scalar type)"] = 0;
}
void FunctionConstantValues::setConstantValue(const void* value, DataType type, const NS::String* name) {
  double v = 0;
  constantValue(value, type, v);
  static_cast<FunctionConstantValuesObject*>(this)->byName[textOf(name)] = v;
}
void FunctionConstantValues::setConstantValues(const void* values, DataType type, NS::Range range) {
  for (NS::UInteger i = 0; i < range.length; ++i)
    setConstantValue(static_cast<const uint8_t*>(values) + i * dataTypeSize(type), type, range.location + i);
}
void FunctionConstantValues::reset() {
  static_cast<FunctionConstantValuesObject*>(this)->byIndex.clear();
  static_cast<FunctionConstantValuesObject*>(this)->typeByIndex.clear();
  static_cast<FunctionConstantValuesObject*>(this)->byName.clear();
}

#define MSLSIM_SELF static_cast<FunctionDescriptorObject*>(this)
#define MSLSIM_CSELF static_cast<const FunctionDescriptorObject*>(this)
FunctionDescriptor* FunctionDescriptor::functionDescriptor() { return mslsim::metal::autoreleased(alloc()->init()); }
FunctionDescriptor* FunctionDescriptor::alloc() { return new FunctionDescriptorObject(); }
FunctionDescriptor* FunctionDescriptor::init() { return this; }
NS::String* FunctionDescriptor::name() const { return MSLSIM_CSELF->name.get(); }
void FunctionDescriptor::setName(const NS::String* n) { MSLSIM_SELF->name.reset(n); }
NS::String* FunctionDescriptor::specializedName() const { return MSLSIM_CSELF->specializedName.get(); }
void FunctionDescriptor::setSpecializedName(const NS::String* n) { MSLSIM_SELF->specializedName.reset(n); }
FunctionConstantValues* FunctionDescriptor::constantValues() const { return MSLSIM_CSELF->constants.get(); }
void FunctionDescriptor::setConstantValues(const FunctionConstantValues* v) { MSLSIM_SELF->constants.reset(v); }
FunctionOptions FunctionDescriptor::options() const { return MSLSIM_CSELF->options; }
void FunctionDescriptor::setOptions(FunctionOptions o) { MSLSIM_SELF->options = o; }
#undef MSLSIM_SELF
#undef MSLSIM_CSELF

// --- Functions and libraries ----------------------------------------------------------------------

NS::String* Function::name() const { return makeString(static_cast<const FunctionObject*>(this)->name); }
FunctionType Function::functionType() const { return FunctionTypeKernel; }
Device* Function::device() const { return static_cast<const FunctionObject*>(this)->library->device(); }
NS::String* Function::label() const { return static_cast<const FunctionObject*>(this)->label.get(); }
void Function::setLabel(const NS::String* l) { static_cast<FunctionObject*>(this)->label.reset(l); }
FunctionOptions Function::options() const { return FunctionOptionNone; }

Function* Library::newFunction(const NS::String* name) { return mslsim::metal::newFunction(this, textOf(name), nullptr, nullptr); }

Function* Library::newFunction(const NS::String* name, const FunctionConstantValues* values, NS::Error** error) {
  return mslsim::metal::newFunction(this, textOf(name), static_cast<const FunctionConstantValuesObject*>(values), error);
}

Function* Library::newFunction(const FunctionDescriptor* descriptor, NS::Error** error) {
  auto* d = static_cast<const FunctionDescriptorObject*>(descriptor);
  return mslsim::metal::newFunction(this, textOf(d->name.get()),
                                    static_cast<const FunctionConstantValuesObject*>(d->constants.get()), error);
}

void Library::newFunction(const NS::String* name, const FunctionConstantValues* values, void* handler,
                          void (*invoke)(void*, Function*, NS::Error*), void (*destroy)(void*)) {
  NS::Error* error = nullptr;
  Function* f = newFunction(name, values, &error);
  handOver(f, error, handler, invoke, destroy);
}

NS::Array* Library::functionNames() const {
  std::vector<const NS::Object*> names;
  for (auto& source : static_cast<const LibraryObject*>(this)->sources)
    for (auto& k : source->kernels) names.push_back(makeString(k));
  return NS::Array::array(names.data(), names.size());
}
Device* Library::device() const { return static_cast<const LibraryObject*>(this)->device; }
NS::String* Library::label() const { return static_cast<const LibraryObject*>(this)->label.get(); }
void Library::setLabel(const NS::String* l) { static_cast<LibraryObject*>(this)->label.reset(l); }
LibraryType Library::type() const { return LibraryTypeExecutable; }
NS::String* Library::installName() const { return static_cast<const LibraryObject*>(this)->installName.get(); }

Library* Device::newLibrary(const NS::String* source, const CompileOptions* options, NS::Error** error) {
  if (!source) return fail(error, kLibraryErrorDomain, LibraryErrorCompileFailure, "newLibrary: the source is null");
  TimedWork timed(device(this).stats.libraries);
  return compiling(error, [&]() -> Library* {
    auto parsed = parseSource("program_source", textOf(source),
                              buildOptions(this, static_cast<const CompileOptionsObject*>(options)));
    succeed(error);
    return makeLibrary(this, {parsed});
  });
}

void Device::newLibrary(const NS::String* source, const CompileOptions* options, void* handler,
                        void (*invoke)(void*, Library*, NS::Error*), void (*destroy)(void*)) {
  NS::Error* error = nullptr;
  Library* l = newLibrary(source, options, &error);
  handOver(l, error, handler, invoke, destroy);
}

Library* Device::newLibrary(const NS::String* filepath, NS::Error** error) {
  namespace fs = std::filesystem;
  std::string path = textOf(filepath);
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(error, kLibraryErrorDomain, LibraryErrorFileNotFound, "no library at '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  TimedWork timed(device(this).stats.libraries);
  return compiling(error, [&]() -> Library* {
    mslsim::BuildOptions options = buildOptions(this, nullptr);
    // A compiled .metallib starts with "MTLB": code for a GPU, which cannot run here.
    if (text.rfind("MTLB", 0) == 0)
      return fail(error, kLibraryErrorDomain, LibraryErrorUnsupported,
                  path + ": a compiled .metallib cannot run on mslsim; give the .metal source, or a library "
                         "manifest naming the .metal files (docs/metal-api.md)");
    // A manifest: lines naming .metal files, -I include directories, -D macros, -f[no-]fast-math;
    // '#' comments.
    if (text.rfind("#!mslsim-library", 0) == 0) {
      fs::path base = fs::path(path).parent_path();
      std::vector<std::string> files;
      std::istringstream lines(text);
      std::string line;
      while (std::getline(lines, line)) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        line = line.substr(start);
        auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? p : (base / p).string(); };
        if (line.rfind("-I", 0) == 0)
          options.includeDirs.push_back(resolve(line.substr(line.find_first_not_of(" \t", 2))));
        else if (line.rfind("-D", 0) == 0)
          options.defines.push_back(line.substr(line.find_first_not_of(" \t", 2)));
        else if (line == "-fno-fast-math")
          options.fastMath = false;
        else if (line == "-ffast-math")
          options.fastMath = true;
        else
          files.push_back(resolve(line));
      }
      std::vector<std::shared_ptr<const LibrarySource>> sources;
      for (auto& file : files) {
        std::ifstream f(file, std::ios::binary);
        if (!f)
          return fail(error, kLibraryErrorDomain, LibraryErrorFileNotFound,
                      path + ": the library manifest names '" + file + "', which cannot be read");
        std::stringstream s;
        s << f.rdbuf();
        sources.push_back(parseSource(file, s.str(), options));
      }
      succeed(error);
      return makeLibrary(this, std::move(sources));
    }
    options.includeDirs.push_back(fs::path(path).parent_path().string());
    auto parsed = parseSource(path, text, options);
    succeed(error);
    return makeLibrary(this, {parsed});
  });
}

Library* Device::newLibrary(const NS::URL* url, NS::Error** error) {
  return newLibrary(NS::String::string(url->fileSystemRepresentation(), NS::UTF8StringEncoding), error);
}

Library* Device::newDefaultLibrary() {
  std::error_code ec;
  auto program = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string path = (program.parent_path() / "default.metallib").string();
  return newLibrary(NS::String::string(path.c_str(), NS::UTF8StringEncoding), nullptr);
}

// --- Linked functions, pipeline descriptors -------------------------------------------------------

LinkedFunctions* LinkedFunctions::linkedFunctions() { return mslsim::metal::autoreleased(alloc()->init()); }
LinkedFunctions* LinkedFunctions::alloc() { return new LinkedFunctionsObject(); }
LinkedFunctions* LinkedFunctions::init() { return this; }
NS::Array* LinkedFunctions::functions() const { return static_cast<const LinkedFunctionsObject*>(this)->functions.get(); }
void LinkedFunctions::setFunctions(const NS::Array* a) { static_cast<LinkedFunctionsObject*>(this)->functions.reset(a); }
NS::Array* LinkedFunctions::privateFunctions() const {
  return static_cast<const LinkedFunctionsObject*>(this)->privateFunctions.get();
}
void LinkedFunctions::setPrivateFunctions(const NS::Array* a) {
  static_cast<LinkedFunctionsObject*>(this)->privateFunctions.reset(a);
}
NS::Array* LinkedFunctions::binaryFunctions() const {
  return static_cast<const LinkedFunctionsObject*>(this)->binaryFunctions.get();
}
void LinkedFunctions::setBinaryFunctions(const NS::Array* a) {
  static_cast<LinkedFunctionsObject*>(this)->binaryFunctions.reset(a);
}

#define MSLSIM_SELF static_cast<ComputePipelineDescriptorObject*>(this)
#define MSLSIM_CSELF static_cast<const ComputePipelineDescriptorObject*>(this)
ComputePipelineDescriptor* ComputePipelineDescriptor::alloc() { return new ComputePipelineDescriptorObject(); }
ComputePipelineDescriptor* ComputePipelineDescriptor::init() { return this; }
Function* ComputePipelineDescriptor::computeFunction() const { return MSLSIM_CSELF->function.get(); }
void ComputePipelineDescriptor::setComputeFunction(const Function* f) { MSLSIM_SELF->function.reset(f); }
LinkedFunctions* ComputePipelineDescriptor::linkedFunctions() const { return MSLSIM_CSELF->linkedFunctions.get(); }
void ComputePipelineDescriptor::setLinkedFunctions(const LinkedFunctions* f) { MSLSIM_SELF->linkedFunctions.reset(f); }
NS::String* ComputePipelineDescriptor::label() const { return MSLSIM_CSELF->label.get(); }
void ComputePipelineDescriptor::setLabel(const NS::String* l) { MSLSIM_SELF->label.reset(l); }
NS::UInteger ComputePipelineDescriptor::maxTotalThreadsPerThreadgroup() const {
  return MSLSIM_CSELF->maxTotalThreadsPerThreadgroup;
}
void ComputePipelineDescriptor::setMaxTotalThreadsPerThreadgroup(NS::UInteger n) {
  MSLSIM_SELF->maxTotalThreadsPerThreadgroup = n;
}
bool ComputePipelineDescriptor::threadGroupSizeIsMultipleOfThreadExecutionWidth() const {
  return MSLSIM_CSELF->multipleOfExecutionWidth;
}
void ComputePipelineDescriptor::setThreadGroupSizeIsMultipleOfThreadExecutionWidth(bool m) {
  MSLSIM_SELF->multipleOfExecutionWidth = m;
}
void ComputePipelineDescriptor::reset() {
  MSLSIM_SELF->function.reset();
  MSLSIM_SELF->linkedFunctions.reset();
  MSLSIM_SELF->label.reset();
  MSLSIM_SELF->maxTotalThreadsPerThreadgroup = 0;
  MSLSIM_SELF->multipleOfExecutionWidth = false;
}
#undef MSLSIM_SELF
#undef MSLSIM_CSELF

// --- Pipeline states -------------------------------------------------------------------------------

namespace {

// MSLSIM_METAL_RECORD: the library's source once, as <hash>.metal in the directory, and a line of
// pipelines.jsonl saying what this pipeline asked for, appended in one write so that concurrent
// processes can share the directory. A record that cannot be written is skipped with a warning:
// recording must never change what the program does.
void recordPipeline(const std::string& directory, const FunctionObject& f) {
  const LibrarySource& source = *f.source;
  uint64_t hash = 1469598103934665603ull;  // FNV-1a: names the text, no security role
  for (unsigned char c : source.text) hash = (hash ^ c) * 1099511628211ull;
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.metal", (unsigned long long)hash);
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  std::string path = directory + "/" + name;
  if (!std::filesystem::exists(path, ec)) {
    std::string temporary = path + "." + std::to_string(::getpid());
    std::ofstream(temporary, std::ios::binary) << source.text;
    std::filesystem::rename(temporary, path, ec);
  }
  nlohmann::json line = {{"source", name},
                         {"name", source.name},
                         {"kernel", f.name},
                         {"include_dirs", source.options.includeDirs},
                         {"defines", source.options.defines},
                         {"fast_math", source.options.fastMath},
                         {"constants", nlohmann::json::array()}};
  for (auto& [index, value] : f.constants) line["constants"].push_back({index, value});
  std::string text = line.dump() + "\n";
  std::string journal = directory + "/pipelines.jsonl";
  int fd = ::open(journal.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != ssize_t(text.size())) warnUnwritable("MSLSIM_METAL_RECORD", journal);
  if (fd >= 0) ::close(fd);
}

ComputePipelineState* makePipeline(Device* d, const Function* function, NS::UInteger maxThreads, NS::Error** error) {
  if (!function)
    return fail(error, kLibraryErrorDomain, LibraryErrorFunctionNotFound, "newComputePipelineState: the function is null");
  auto* f = static_cast<const FunctionObject*>(function);
  if (!device(d).recordPath.empty()) recordPipeline(device(d).recordPath, *f);
  TimedWork timed(device(d).stats.pipelines);
  return compiling(error, [&]() -> ComputePipelineState* {
    mslsim::BuildOptions options = f->source->options;
    options.functionConstants = f->constants;
    options.kernels = std::vector<std::string>{f->name};
    mslsim::Library library = mslsim::Library::compileSource(f->source->name, f->source->text, options);
    // Metal fails to make a function whose required constants (read without testing
    // is_function_constant_defined) were not all given.
    mslsim::Kernel kernel = library.kernel(f->name);
    // Or one given a value of another type: "valid constant values for all required function
    // constants" (makeFunction(name:constantValues:)).
    for (const mslsim::FunctionConstantInfo& c : kernel.info().requiredFunctionConstants) {
      auto refuse = [&](const std::string& why) {
        return fail(error, kLibraryErrorDomain, LibraryErrorCompileFailure,
                    "function '" + f->name + "': function constant '" + c.name + "' (" + c.type +
                        ", [[function_constant(" + std::to_string(c.index) + ")]], " + c.location.file + ":" +
                        std::to_string(c.location.line) + ") " + why);
      };
      if (!f->constants.count(c.index))
        return refuse("is required and was not given a value (set it in the MTLFunctionConstantValues, or test it "
                      "with is_function_constant_defined)");
      auto given = f->constantTypes.find(c.index);
      if (given != f->constantTypes.end() && !isValueTypeOf(given->second, c.canonicalType))
        return refuse("was given a value of type " + dataTypeName(given->second));
    }
    auto* p = new ComputePipelineStateObject();
    p->device = d;
    p->kernel = kernel;
    NS::UInteger declared = p->kernel.info().maxTotalThreadsPerThreadgroup;
    p->maxThreads = 1024;
    if (declared) p->maxThreads = std::min<NS::UInteger>(p->maxThreads, declared);
    if (maxThreads) p->maxThreads = std::min(p->maxThreads, maxThreads);
    succeed(error);
    return p;
  });
}

}  // namespace

ComputePipelineState* Device::newComputePipelineState(const Function* function, NS::Error** error) {
  return makePipeline(this, function, 0, error);
}

ComputePipelineState* Device::newComputePipelineState(const Function* function, PipelineOption,
                                                      const AutoreleasedComputePipelineReflection* reflection,
                                                      NS::Error** error) {
  return makePipeline(this, function, 0, error);
}

ComputePipelineState* Device::newComputePipelineState(const ComputePipelineDescriptor* descriptor, PipelineOption,
                                                      const AutoreleasedComputePipelineReflection* reflection,
                                                      NS::Error** error) {
  auto* d = static_cast<const ComputePipelineDescriptorObject*>(descriptor);
  if (d->linkedFunctions) {
    auto* linked = static_cast<const LinkedFunctionsObject*>(d->linkedFunctions.get());
    for (auto* list : {linked->functions.get(), linked->privateFunctions.get(), linked->binaryFunctions.get()})
      if (list && list->count())
        return fail(error, kLibraryErrorDomain, LibraryErrorUnsupported,
                    "newComputePipelineState: linked functions are not supported by mslsim");
  }
  return makePipeline(this, d->function.get(), d->maxTotalThreadsPerThreadgroup, error);
}

#define MSLSIM_CSELF static_cast<const ComputePipelineStateObject*>(this)
NS::UInteger ComputePipelineState::maxTotalThreadsPerThreadgroup() const { MSLSIM_NIL_ANSWERS(0); return MSLSIM_CSELF->maxThreads; }
NS::UInteger ComputePipelineState::threadExecutionWidth() const { return 32; }
NS::UInteger ComputePipelineState::staticThreadgroupMemoryLength() const { return 0; }
Device* ComputePipelineState::device() const { return MSLSIM_CSELF->device; }
NS::String* ComputePipelineState::label() const { return MSLSIM_CSELF->label.get(); }
ResourceID ComputePipelineState::gpuResourceID() const { return {reinterpret_cast<uint64_t>(this)}; }
bool ComputePipelineState::supportIndirectCommandBuffers() const { return false; }
#undef MSLSIM_CSELF

}  // namespace MTL
