// Where a source's precompilable prefix ends (SourcePrefix.h): before its first kernel, at a
// top-level boundary, with the presumed position its line directives give there.
#include <gtest/gtest.h>

#include <algorithm>

#include "SourcePrefix.h"

using namespace mslsim;

namespace {
bool embedded(const std::string& name) { return name == "metal_stdlib" || name == "metal_simdgroup"; }

// Helper functions enough for a prefix worth precompiling (each line ends its declaration).
std::string helpers(unsigned lines = 600) {
  std::string text;
  for (unsigned i = 0; i < lines; ++i) text += "inline float helper_" + std::to_string(i) + "(float x) { return x * 2.0f; }\n";
  return text;
}

unsigned lineCount(const std::string& text) { return unsigned(std::count(text.begin(), text.end(), '\n')); }
}  // namespace

TEST(SourcePrefix, EndsBeforeTheFirstInstantiationThatNamesAKernel) {
  std::string head = "#include <metal_stdlib>\nusing namespace metal;\n" + helpers() +
                     "template <typename T>\nvoid scale(device T* x, uint i) { x[i] *= T(2); }\n";
  std::string source = head + "template [[host_name(\"scale_f\")]] [[kernel]] decltype(scale<float>) scale<float>;\n";
  auto prefix = precompilablePrefix(source, embedded);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->bytes, head.size());
  EXPECT_EQ(prefix->lines, lineCount(head));
  EXPECT_EQ(prefix->presumedName, "");
  EXPECT_EQ(prefix->presumedLine, lineCount(head) + 1);
}

TEST(SourcePrefix, BacksUpToTheTemplateHeadOfAKernelDefinition) {
  std::string head = "#include <metal_stdlib>\n" + helpers();
  std::string source = head + "template <typename T>\n[[kernel]] void k(device T* x [[buffer(0)]]) {}\n";
  auto prefix = precompilablePrefix(source, embedded);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->bytes, head.size());
}

TEST(SourcePrefix, ContinuesTheLineDirectivesOfGeneratedSources) {
  // MLX's JIT sources name the header each part came from.
  std::string head = "#line 1 \"mlx/utils.h\"\n" + helpers() + "#line 40 \"mlx/binary.h\"\nstruct Add {};\n\n";
  std::string source = head + "template [[host_name(\"k\")]] [[kernel]] decltype(f<int>) f<int>;\n";
  auto prefix = precompilablePrefix(source, embedded);
  ASSERT_TRUE(prefix);
  EXPECT_EQ(prefix->presumedName, "mlx/binary.h");
  EXPECT_EQ(prefix->presumedLine, 42u);
}

TEST(SourcePrefix, KernelWordsInCommentsAndMacroBodiesDoNotEndIt) {
  std::string head = "#include <metal_stdlib>\n" + helpers() +
                     "/*\nkernel void commented_out();\n*/\n"
                     "#define INSTANTIATE(name) \\\n  template [[host_name(#name)]] [[kernel]] void name<int>();\n"
                     "#if 0\n[[kernel]] void disabled() {}\n#endif\n";
  std::string source = head + helpers(10) + "kernel void k() {}\n";
  auto prefix = precompilablePrefix(source, embedded);
  ASSERT_TRUE(prefix);
  // The #if block holds a kernel line, so the prefix ends before the block.
  EXPECT_EQ(prefix->bytes, head.find("#if 0"));
}

TEST(SourcePrefix, NoneWhenTheTextWouldNotBeItsOnlyInput) {
  std::string kernel = "kernel void k() {}\n";
  // A user header's text is not part of the prefix's name.
  EXPECT_FALSE(precompilablePrefix("#include \"mine.h\"\n" + helpers() + kernel, embedded));
  EXPECT_FALSE(precompilablePrefix("#include <not_embedded.h>\n" + helpers() + kernel, embedded));
  // A line marker with flags (entering a system header) would be lost by the continuation.
  EXPECT_FALSE(precompilablePrefix("# 1 \"sys.h\" 1 3\n" + helpers() + kernel, embedded));
  EXPECT_FALSE(precompilablePrefix("#line __LINE__\n" + helpers() + kernel, embedded));
}

TEST(SourcePrefix, NoneWhenShortOrWithoutKernels) {
  EXPECT_FALSE(precompilablePrefix(helpers(10) + "kernel void k() {}\n", embedded));
  EXPECT_FALSE(precompilablePrefix(helpers(), embedded));
  // The only boundary before the kernel is the start of the file.
  EXPECT_FALSE(precompilablePrefix("namespace n {\n" + helpers() + "kernel void k() {}\n}\n", embedded));
}
