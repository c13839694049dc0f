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
            "constexpr const int width __attribute__((msl_function_constant((1)))) = "
            "::metal::__mslsim_fc::value<decltype(width)>((1)); static constexpr bool "
            "__mslsim_fc_defined_width = ::metal::__mslsim_fc::defined((1));\nx");
  // Columns after the inserted words still map to the original text.
  EXPECT_EQ(r.columns.originalColumn(1, 1 + 10 + 6), 10u);  // `int` is at column 10 in the original
}

TEST(SourceRewriter, OverloadsDifferingOnlyByAddressSpaceKeepTheFirstDefinition) {
  std::string src =
      "struct C {\n"
      "  float re;\n"
      "  C() thread : re(0) {}\n"
      "  C() threadgroup : re{0} {}\n"
      "  float get() const thread { return re; }\n"
      "  float get() const device {\n"
      "    return re;\n"
      "  }\n"
      "  void set(const thread C& o) device { re = o.re; }\n"
      "  void set(const threadgroup C& o) device { re = o.re; }\n"
      "};\n";
  // The repeats become blanks of the same length: lines and columns stay where they were.
  auto blank = [](const std::string& line) { return std::string(line.size(), ' ') + "\n"; };
  auto r = rewriteMslSource(src);
  EXPECT_EQ(r.text, "struct C {\n"
                    "  float re;\n"
                    "  C() thread : re(0) {}\n" +
                        blank("  C() threadgroup : re{0} {}") +
                        "  float get() const thread { return re; }\n" +
                        blank("  float get() const device {") + blank("    return re;") + blank("  }") +
                        "  void set(const thread C& o) device { re = o.re; }\n" +
                        blank("  void set(const threadgroup C& o) device { re = o.re; }") + "};\n");
}

TEST(SourceRewriter, AddressSpaceOverloadsOfFreeFunctionsAreMerged) {
  auto r = rewriteMslSource("float ld(const device float* p) { return *p; }\n"
                            "float ld(const threadgroup float* p) { return *p; }\nint x;");
  EXPECT_EQ(r.text, "float ld(const device float* p) { return *p; }\n"
                    "                                                   \nint x;");
}

TEST(SourceRewriter, DefinitionsThatDifferOtherwiseOrLiveInOtherBranchesStay) {
  // Different parameter types, different preprocessor branches, statements inside a body, and
  // duplicates without an address space (a user error Clang reports) are all left alone.
  std::string src =
      "float f(device float* p) { if (p == (device float*)0) { } if (p == (device float*)0) { } return 0; }\n"
      "float f(device half* p) { return 0; }\n"
      "#if A\n"
      "float g(device float* p) { return 0; }\n"
      "#else\n"
      "float g(threadgroup float* p) { return 0; }\n"
      "#endif\n"
      "int h() { return 0; }\n"
      "int h() { return 0; }\n"
      "#define M(x) float m(device x* p) { return 0; } float m(threadgroup x* p) { return 0; }\n";
  EXPECT_EQ(rewriteMslSource(src).text, src);
}

TEST(SourceRewriter, ProgramScopeConstantVariablesBecomeConst) {
  // Read-only, and usable in constant expressions (binding indices, array bounds); pointers and
  // references to constant memory in parameter lists and bodies are left to the prelude.
  auto r = rewriteMslSource("constant int idx = base + 2;\nstruct S { constant float* p; };\n"
                            "void f(constant float* q) { constant int* r = nullptr; }\n#define C constant int\n");
  EXPECT_EQ(r.text, "const int idx = base + 2;\nstruct S { const float* p; };\n"
                    "void f(constant float* q) { constant int* r = nullptr; }\n#define C constant int\n");
  EXPECT_EQ(r.columns.originalColumn(1, 7), 10u);  // `int`
}

TEST(SourceRewriter, ArgumentsEnabledByAFunctionConstantNameIt) {
  auto r = rewriteMslSource("void k(device float* m [[buffer(2), function_constant(has_mask)]]);");
  EXPECT_EQ(r.text, "void k(device float* m __attribute__((msl_buffer(2), msl_enabled_by((has_mask)))));");
  EXPECT_TRUE(r.warnings.empty());
}

// ggml declares its constants with an index expression: `[[function_constant(FC_UNARY + 0)]]`.
TEST(SourceRewriter, ProgramScopeFunctionConstantsTakeAnIndexExpression) {
  auto r = rewriteMslSource("constant short op [[function_constant(FC_BASE + 0)]];");
  EXPECT_NE(r.text.find("value<decltype(op)>((FC_BASE + 0))"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("msl_enabled_by"), std::string::npos) << r.text;
}

// ggml writes `uint3 tgpig[[threadgroup_position_in_grid]]`, the list glued to the name.
TEST(SourceRewriter, AnAttributeListGluedToANameStaysApartFromIt) {
  auto r = rewriteMslSource("void k(uint3 tgpig[[threadgroup_position_in_grid]]);");
  EXPECT_EQ(r.text, "void k(uint3 tgpig __attribute__((msl_builtin(\"threadgroup_position_in_grid\"))));");
}

TEST(SourceRewriter, ClassSpecialisationsDifferingOnlyByAddressSpaceKeepTheFirst) {
  auto r = rewriteMslSource("template <class T> struct E<thread T*> { using type = T; };\n"
                            "template <class T> struct E<device T*> { using type = T; };\n"
                            "template <class T> struct E<const T*> { using type = T; };\n");
  EXPECT_EQ(r.text, "template <class T> struct E<thread T*> { using type = T; };\n" +
                        std::string(59, ' ') + "\ntemplate <class T> struct E<const T*> { using type = T; };\n");
}
