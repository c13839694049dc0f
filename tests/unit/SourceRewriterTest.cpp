#include <gtest/gtest.h>

#include "SourceRewriter.h"

using mslsim::rewriteMslSource;

TEST(SourceRewriter, BufferAttributeBecomesGnuAttributeKeepingItsArgument) {
  auto r = rewriteMslSource("device float* a [[buffer(3)]],");
  EXPECT_EQ(r.text, "device float* a __attribute__((msl_buffer(3))),");
}

TEST(SourceRewriter, BuiltinsBecomeOneAttributeWithTheirName) {
  auto r = rewriteMslSource("uint3 gid [[thread_position_in_grid]]");
  EXPECT_EQ(r.text, "uint3 gid __attribute__((msl_builtin(\"thread_position_in_grid\")))");
}

TEST(SourceRewriter, StandardAttributesStayInCxxForm) {
  auto r = rewriteMslSource("[[maybe_unused]] int x; [[kernel, maybe_unused]] void f();");
  EXPECT_EQ(r.text, "[[maybe_unused]] int x; [[maybe_unused]] __attribute__((msl_kernel)) void f();");
}

TEST(SourceRewriter, HostNameInstantiationKeepsTheStringArgument) {
  auto r = rewriteMslSource("template [[host_name(\"add_f\")]] [[kernel]] decltype(add<float>) add<float>;");
  EXPECT_EQ(r.text,
            "template __attribute__((msl_host_name(\"add_f\"))) __attribute__((msl_kernel)) "
            "decltype(add<float>) add<float>;");
}

TEST(SourceRewriter, UnsupportedAttributesAreDroppedWithAWarning) {
  auto r = rewriteMslSource("float4 p [[position]];");
  EXPECT_EQ(r.text, "float4 p ;");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].line, 1u);
  EXPECT_EQ(r.warnings[0].column, 10u);
}

TEST(SourceRewriter, CommentsAndStringsAreNotTouched) {
  std::string src = "// [[buffer(0)]] 1.0h\n/* [[kernel]] */ const char* s = \"[[buffer(1)]] 2h\";";
  EXPECT_EQ(rewriteMslSource(src).text, src);
}

TEST(SourceRewriter, HalfAndBfloatLiteralSuffixes) {
  EXPECT_EQ(rewriteMslSource("x = 1.5h + 2h;").text, "x = 1.5f16 + 2.0f16;");
  EXPECT_EQ(rewriteMslSource("y = 0.25bf;").text, "y = ::metal::bfloat(0.25f);");
  // Hex literals and identifiers ending in h are not literals with suffixes.
  EXPECT_EQ(rewriteMslSource("z = 0x1Fh2 + depth + v1h;").text, "z = 0x1Fh2 + depth + v1h;");
}

TEST(SourceRewriter, LineStructureIsPreservedAcrossMultiLineAttributes) {
  auto r = rewriteMslSource("a [[buffer(0),\n  buffer(1)]] b\nc");
  int newlines = 0;
  for (char c : r.text) newlines += c == '\n';
  EXPECT_EQ(newlines, 2);
  EXPECT_EQ(r.text.substr(r.text.rfind('\n') + 1), "c");
}

TEST(SourceRewriter, ColumnsMapBackToTheOriginalText) {
  // "uint tid [[thread_position_in_grid]]) { x = 1.0h; }"
  std::string src = "f(uint tid [[thread_position_in_grid]]) { x = 1.0h; }";
  auto r = rewriteMslSource(src);
  size_t outX = r.text.find("x =");
  size_t inX = src.find("x =");
  EXPECT_EQ(r.columns.originalColumn(1, unsigned(outX + 1)), unsigned(inX + 1));
  // A column inside the replacement maps to the start of the replaced text.
  size_t outAttr = r.text.find("msl_builtin");
  EXPECT_EQ(r.columns.originalColumn(1, unsigned(outAttr + 1)), unsigned(src.find("[[") + 1));
  // Columns before any edit are unchanged.
  EXPECT_EQ(r.columns.originalColumn(1, 3), 3u);
}

TEST(SourceRewriter, AttributeListsInContinuedMacroLinesKeepTheContinuation) {
  std::string src = "#define inst(n, f) template [[host_name(n)]] [[kernel]] \\\n  decltype(f) f;\nx";
  auto r = rewriteMslSource(src);
  EXPECT_EQ(r.text, "#define inst(n, f) template __attribute__((msl_host_name(n))) __attribute__((msl_kernel)) \\\n  decltype(f) f;\nx");
}

TEST(SourceRewriter, FunctionConstantsBecomeConstexprValuesWithADefinedFlag) {
  auto r = rewriteMslSource("constant int width [[function_constant(1)]];\nx");
  EXPECT_EQ(r.text,
            "constexpr constant int width  = ::metal::__mslsim_fc::value<decltype(width)>(1); static constexpr bool "
            "__mslsim_fc_defined_width = ::metal::__mslsim_fc::defined(1);\nx");
  // Columns after the inserted words still map to the original text.
  EXPECT_EQ(r.columns.originalColumn(1, 1 + 10 + 9), 10u);  // `int` is at column 10 in the original
}
