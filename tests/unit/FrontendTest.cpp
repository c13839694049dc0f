// The front end as the runtime sees it: which kernels a program has, how their arguments bind, and
// where compile errors point.
#include <gtest/gtest.h>

#include <regex>

#include "MslCompiler.h"
#include "Program.h"

using namespace mslsim;

namespace {
std::shared_ptr<const Program> compile(const std::string& source) {
  return Program::compileSource("/virtual/test.metal", source);
}
const ArgumentInfo& arg(const ExecutableKernel& k, const std::string& name) {
  for (auto& a : k.info.arguments)
    if (a.name == name) return a;
  throw std::runtime_error("no argument " + name);
}
}  // namespace

TEST(Frontend, ArgumentsBindExplicitlyOrInDeclarationOrder) {
  auto p = compile(R"(
#include <metal_stdlib>
using namespace metal;
kernel void k(device const float* a, constant uint& n, device float* out [[buffer(0)]],
              threadgroup float* scratch [[threadgroup(0)]],
              ushort2 lid [[thread_position_in_threadgroup]], uint3 gid [[thread_position_in_grid]]) {
  out[gid.x] = a[lid.x] + n + scratch[0];
})");
  const ExecutableKernel& k = p->kernel("k");
  EXPECT_EQ(arg(k, "out").binding, 0u);
  EXPECT_TRUE(arg(k, "out").explicitBinding);
  EXPECT_EQ(arg(k, "a").binding, 1u);  // implicit: lowest unused index, in declaration order
  EXPECT_EQ(arg(k, "n").binding, 2u);
  EXPECT_EQ(arg(k, "n").space, AddressSpace::Constant);
  EXPECT_TRUE(arg(k, "n").isReference);
  EXPECT_TRUE(arg(k, "a").isConst);
  EXPECT_EQ(arg(k, "a").pointeeType, "float");
  EXPECT_EQ(arg(k, "scratch").role, ArgumentRole::ThreadgroupMemory);
  EXPECT_EQ(arg(k, "lid").components, 2u);
  EXPECT_EQ(arg(k, "lid").componentSize, 2u);
  EXPECT_EQ(arg(k, "gid").components, 3u);
  EXPECT_EQ(arg(k, "gid").builtin, BuiltinValue::ThreadPositionInGrid);
}

TEST(Frontend, TemplateInstantiationsAreKernelsByHostName) {
  auto p = compile(R"(
#include <metal_stdlib>
using namespace metal;
template <typename T>
[[kernel]] void scale(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup T tile[4];
  tile[i % 4] = x[i];
  x[i] = tile[i % 4] * T(2);
}
template [[host_name("scale_f")]] [[kernel]] decltype(scale<float>) scale<float>;
template [[host_name("scale_i")]] kernel void scale<int>(device int*, uint);
)");
  ASSERT_EQ(p->kernels().size(), 2u);
  EXPECT_EQ(p->kernel("scale_f").info.arguments[0].pointeeType, "float");
  EXPECT_EQ(p->kernel("scale_i").info.arguments[0].pointeeType, "int");
  EXPECT_EQ(p->kernel("scale_f").staticThreadgroupBytes, 16u);
  EXPECT_THROW(p->kernel("scale"), Error);
}

TEST(Frontend, CompileErrorsPointAtTheUsersLineAndColumn) {
  try {
    compile("#include <metal_stdlib>\nkernel void k(device float* out [[buffer(0)]]) {\n  out[0] = undeclared;\n}\n");
    FAIL() << "expected a compile error";
  } catch (const CompileFailed& e) {
    const Diagnostic& d = e.diagnostics().front();
    EXPECT_EQ(d.where.file, "/virtual/test.metal");
    EXPECT_EQ(d.where.line, 3u);
    EXPECT_EQ(d.where.column, 12u);
    EXPECT_EQ(d.sourceLine, "  out[0] = undeclared;");
  }
}

TEST(Frontend, ColumnsAfterRewrittenAttributesAreTheOriginalOnes) {
  try {
    compile("kernel void k(device float* o [[buffer(0)]], int  t [[thread_position_in_grid]]) { o[t] = nope; }");
    FAIL();
  } catch (const CompileFailed& e) {
    EXPECT_EQ(e.diagnostics().front().where.column, 91u);  // the column of 'nope' in the original text
  }
}

TEST(Frontend, KernelArgumentsWithoutAttributesAreRejected) {
  try {
    compile("kernel void k(device float* o [[buffer(0)]], float x) { o[0] = x; }");
    FAIL();
  } catch (const CompileFailed& e) {
    EXPECT_NE(e.diagnostics().front().message.find("argument 'x' of kernel 'k' has no attribute"),
              std::string::npos);
  }
}

TEST(Frontend, TwoArgumentsOnOneBufferIndexAreAnError) {
  EXPECT_THROW(compile("kernel void k(device float* a [[buffer(1)]], device float* b [[buffer(1)]]) {}"),
               CompileFailed);
}

TEST(Frontend, KernelsDeclaredByAMacroBindLikeAnyOther) {
  auto p = compile(R"(
#include <metal_stdlib>
using namespace metal;
// A comment with commas {a, b, c} before the kernels must not confuse the argument listing.
#define DEFINE_SCALE(NAME, T) \
  kernel void NAME(device const T* in [[buffer(0)]], device T* out [[buffer(1)]], \
                   uint i [[thread_position_in_grid]]) { out[i] = in[i] * T(2); }
DEFINE_SCALE(scale_f, float)
DEFINE_SCALE(scale_i, int)
)");
  const ExecutableKernel& k = p->kernel("scale_i");
  EXPECT_EQ(arg(k, "in").typeSpelling, "const device int*");
  EXPECT_EQ(arg(k, "out").typeSpelling, "device int*");
  EXPECT_EQ(arg(k, "i").typeSpelling, "uint");
  EXPECT_EQ(arg(k, "out").space, AddressSpace::Device);
}

TEST(Frontend, ArgumentsGatedByAFunctionConstantRecordItAndItsValue) {
  const char* source = R"(
#include <metal_stdlib>
using namespace metal;
constant bool has_mask [[function_constant(0)]];
constant bool use_bias [[function_constant(1)]];
kernel void k(device const float* x, device const bool* mask [[function_constant(has_mask)]],
              device float* out, device const float* bias [[buffer(1), function_constant(use_bias)]],
              uint i [[thread_position_in_grid]]) {
  out[i] = (has_mask && !mask[i]) ? 0.0f : x[i] + (use_bias ? bias[i] : 0.0f);
})";
  // Both false: the gated arguments take no implicit index, and `bias` may share index 1 with `out`.
  auto p = compile(source);
  const ExecutableKernel& k = p->kernel("k");
  EXPECT_EQ(arg(k, "mask").functionConstant, "has_mask");
  EXPECT_FALSE(arg(k, "mask").enabled);
  EXPECT_FALSE(arg(k, "bias").enabled);
  EXPECT_TRUE(arg(k, "x").enabled);
  EXPECT_TRUE(arg(k, "x").functionConstant.empty());
  EXPECT_EQ(arg(k, "x").binding, 0u);
  EXPECT_EQ(arg(k, "out").binding, 1u);
  EXPECT_EQ(k.info.bufferArgument(1)->name, "out");
  // has_mask true: `mask` takes the next implicit index.
  CompileOptions options;
  options.functionConstants[0] = 1;
  auto q = Program::compileSource("/virtual/test.metal", source, options);
  const ExecutableKernel& kq = q->kernel("k");
  EXPECT_TRUE(arg(kq, "mask").enabled);
  EXPECT_EQ(arg(kq, "mask").binding, 1u);
  EXPECT_EQ(arg(kq, "out").binding, 2u);
  // use_bias true too: `bias` and `out` would both be buffer 1 (out is implicit, so it moves).
  options.functionConstants[1] = 1;
  auto r = Program::compileSource("/virtual/test.metal", source, options);
  EXPECT_EQ(arg(r->kernel("k"), "bias").binding, 1u);
  EXPECT_EQ(arg(r->kernel("k"), "out").binding, 3u);
}

// The standard library comes precompiled when a file includes <metal_stdlib> (a parse of it cost
// more than most kernels); any other spelling of the include parses the text. Both must give the
// same code.
TEST(Frontend, ThePrecompiledStandardLibraryGivesTheCodeTheTextGives) {
  const std::string kernel = R"(
using namespace metal;
struct Params { float4 scale; uint n; };
template <typename T>
kernel void reduce(device const T* in [[buffer(0)]], device atomic_float* out [[buffer(1)]],
                   constant Params& p [[buffer(2)]], uint gid [[thread_position_in_grid]],
                   uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[32];
  float4 v = float4(in[gid]) * p.scale;
  float s = simd_sum(dot(v, float4(1.0f)) + metal::precise::exp(v.x) + half(v.y));
  if (lane == 0) partial[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (gid == 0) atomic_fetch_add_explicit(out, partial[0] + float(p.n), memory_order_relaxed);
}
template [[host_name("reduce_f")]] kernel void reduce<float>(device const float*, device atomic_float*,
    constant Params&, uint, uint, uint);
)";
  CompileOptions options;
  options.lineTables = true;
  CompileResult precompiled = compileMsl("/virtual/lib.metal", "#include <metal_stdlib>\n" + kernel, options);
  CompileResult parsed = compileMsl("/virtual/lib.metal", "#include \"metal_stdlib\"\n" + kernel, options);
  ASSERT_TRUE(precompiled.ok);
  ASSERT_TRUE(parsed.ok);
  ASSERT_EQ(precompiled.program.kernels.size(), 1u);
  // The file's checksum differs (the two include lines do); nothing else may.
  auto withoutChecksums = [](const std::string& ir) {
    return std::regex_replace(ir, std::regex("checksum: \"[0-9a-f]+\""), "checksum");
  };
  EXPECT_EQ(withoutChecksums(printModule(precompiled.program)), withoutChecksums(printModule(parsed.program)));
}

namespace {
// A library shaped like MLX's JIT sources: headers named by line directives (a function constant,
// a warning, a kernel template that calls a simd function, which records its call site, among
// them), then instantiations and a kernel of its own.
std::string libraryWithHeaders(const std::string& rest) {
  std::string text = "#include <metal_stdlib>\nusing namespace metal;\n#line 1 \"lib/helpers.h\"\n";
  for (int i = 0; i < 400; ++i)
    text += "template <typename T> inline T helper_" + std::to_string(i) + "(T x) { return x * T(" + std::to_string(i) +
            "); }\n";
  text += "constant bool use_bias [[function_constant(7)]];\n"
          "inline int no_return(int x) { if (x) return 1; }\n"  // a warning: not every path returns
          "#line 1 \"lib/kernels.h\"\n"
          "template <typename T>\n"
          "void scale(device T* x [[buffer(0)]], constant float& bias [[buffer(1)]],\n"
          "           uint i [[thread_position_in_grid]]) {\n"
          "  x[i] = helper_3(x[i]) + simd_sum(x[i]) + (use_bias ? T(bias) : T(0));\n"
          "}\n\n";
  return text + rest;
}

std::vector<std::string> described(const CompileResult& r) {
  std::vector<std::string> lines;
  for (auto& d : r.diagnostics) lines.push_back(formatDiagnostic(d));
  for (auto& k : r.declaredKernels) {
    std::string line = "kernel " + k.name;
    for (auto& a : k.arguments) line += " " + a.name + ":" + a.pointeeType + "@" + std::to_string(a.binding);
    lines.push_back(line);
  }
  for (auto& c : r.functionConstants)
    lines.push_back("constant " + c.name + " " + std::to_string(c.index) + " " + c.type + " " + c.location.file + ":" +
                    std::to_string(c.location.line) + ":" + std::to_string(c.location.column));
  return lines;
}

std::string withoutChecksums(const std::string& ir) {
  return std::regex_replace(ir, std::regex("checksum: \"[0-9a-f]+\""), "checksum");
}
}  // namespace

// MLX's JIT libraries repeat ~75 KB of headers before a few lines of instantiations; the text
// before the first kernel is precompiled once and shared. Starting from it must give exactly what
// parsing the whole file gives: the code (with its line tables), the kernels, the function
// constants with their positions, and every diagnostic, for a listing and for code.
TEST(Frontend, APrecompiledPrefixGivesWhatTheWholeFileGives) {
  std::string source = libraryWithHeaders(
      "template [[host_name(\"scale_f\")]] [[kernel]] decltype(scale<float>) scale<float>;\n"
      "template [[host_name(\"scale_i\")]] [[kernel]] decltype(scale<int>) scale<int>;\n"
      "kernel void own(device float* y [[buffer(0)]], uint i [[thread_position_in_grid]]) { y[i] = helper_9(y[i]); }\n");
  for (bool listing : {true, false})
    for (double bias : {0.0, 1.0}) {
      SCOPED_TRACE(std::string(listing ? "listing" : "code") + ", use_bias " + std::to_string(bias));
      CompileOptions options;
      options.lineTables = true;
      options.functionConstants[7] = bias;
      if (listing) options.kernels = std::vector<std::string>();
      else options.kernels = std::vector<std::string>{"scale_i", "own"};
      CompileResult fromPrefix = compileMsl("program_source", source, options);
      options.precompiledPrefix = false;
      CompileResult whole = compileMsl("program_source", source, options);
      ASSERT_TRUE(whole.ok);
      ASSERT_TRUE(fromPrefix.ok);
      EXPECT_TRUE(fromPrefix.startedFromPrefix);
      EXPECT_FALSE(whole.startedFromPrefix);
      EXPECT_EQ(described(fromPrefix), described(whole));
      EXPECT_EQ(withoutChecksums(printModule(fromPrefix.program)), withoutChecksums(printModule(whole.program)));
      // The warning and the constant are the headers' own, at their lines.
      std::vector<std::string> lines = described(whole);
      EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                              [](const std::string& l) { return l.rfind("constant use_bias 7 bool lib/helpers.h:401:", 0) == 0; }),
                1);
      EXPECT_EQ(lines.front(), "lib/helpers.h:402:48: warning: non-void function does not return a value in all control paths");
      EXPECT_NE(std::find(lines.begin(), lines.end(), "kernel scale_i x:int@0 bias:float@1 i:@0"), lines.end());
    }
}

// What the prefix cannot be shared for is parsed whole: a kernel declared before the split (here by
// a macro the split does not see), or an error after it, which is reported as the whole file's
// parse reports it.
TEST(Frontend, APrefixThatCannotBeSharedIsParsedWhole) {
  std::string kernelInHeaders = libraryWithHeaders("") ;
  kernelInHeaders.insert(kernelInHeaders.find("#line 1 \"lib/kernels.h\""),
                         "#define DECLARE(name) [[kernel]] void name(device int* p [[buffer(0)]]) { p[0] = 1; }\n"
                         "DECLARE(from_a_macro)\n");
  kernelInHeaders += "template [[host_name(\"scale_f\")]] [[kernel]] decltype(scale<float>) scale<float>;\n";
  CompileResult r = compileMsl("program_source", kernelInHeaders, CompileOptions());
  ASSERT_TRUE(r.ok);
  EXPECT_FALSE(r.startedFromPrefix);
  EXPECT_EQ(r.declaredKernels.size(), 2u);

  std::string error = libraryWithHeaders("kernel void bad(device float* y [[buffer(0)]]) { y[0] = undeclared; }\n");
  CompileOptions options;
  CompileResult fromPrefix = compileMsl("program_source", error, options);
  options.precompiledPrefix = false;
  CompileResult whole = compileMsl("program_source", error, options);
  EXPECT_FALSE(fromPrefix.ok);
  EXPECT_EQ(described(fromPrefix), described(whole));
}

// Code for one kernel instantiates that kernel's body alone; the listing, which Metal's
// newLibrary is, instantiates every body and so reports an error in any of them.
// Written out or by a macro (as MLX's default library writes thousands of them): the bodies of
// the kernels a compile does not generate are never instantiated.
TEST(Frontend, CodeForOneKernelInstantiatesOnlyItsBody) {
  const std::string templates = R"(
#include <metal_stdlib>
using namespace metal;
template <typename T>
void twice(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) { x[i] = x[i] * T(2); }
template <typename T>
void broken(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) { x[i] = T::missing; }
)";
  const std::string written = R"(template [[host_name("twice_f")]] [[kernel]] decltype(twice<float>) twice<float>;
template [[host_name("broken_i")]] [[kernel]] decltype(broken<int>) broken<int>;
)";
  const std::string byMacro = R"(#define instantiate(name, f, T) template [[host_name(name)]] [[kernel]] decltype(f<T>) f<T>;
instantiate("twice_f", twice, float)
instantiate("broken_i", broken, int)
)";
  for (const std::string& instantiations : {written, byMacro}) {
    SCOPED_TRACE(instantiations);
    const std::string source = templates + instantiations;
    CompileOptions listing;
    listing.kernels = std::vector<std::string>();
    CompileResult listed = compileMsl("/virtual/lib.metal", source, listing);
    EXPECT_FALSE(listed.ok);
    ASSERT_FALSE(listed.diagnostics.empty());
    EXPECT_EQ(listed.diagnostics[0].where.line, 7u);

    CompileOptions one;
    one.kernels = std::vector<std::string>{"twice_f"};
    CompileResult code = compileMsl("/virtual/lib.metal", source, one);
    ASSERT_TRUE(code.ok);
    ASSERT_EQ(code.program.kernels.size(), 1u);
    EXPECT_EQ(code.program.kernels[0].name, "twice_f");
    // The other kernel is still described, from its signature.
    ASSERT_EQ(code.declaredKernels.size(), 2u);
    EXPECT_EQ(code.declaredKernels[1].name, "broken_i");
    EXPECT_EQ(code.declaredKernels[1].arguments[0].pointeeType, "int");
    EXPECT_EQ(printModule(code.program).find("broken"), std::string::npos);
  }
}
