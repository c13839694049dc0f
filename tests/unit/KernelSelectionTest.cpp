// Code for some kernels of a library: the explicit instantiations of the others become
// declarations, so only the wanted bodies are instantiated (KernelSelection.h).
#include <gtest/gtest.h>

#include "KernelSelection.h"

using namespace mslsim;

TEST(KernelSelection, InstantiationsOfUnwantedKernelsBecomeDeclarations) {
  std::string source =
      "template [[host_name(\"add_f\")]] [[kernel]] decltype(add<float>) add<float>;\n"
      "  template [[host_name(\"add_i\")]] [[kernel]] decltype(add<int>) add<int>;\n"
      "template [[host_name(\"mul_f\")]]\n"
      "[[kernel]] void mul<float>(device float*);\n";
  RewrittenSource rewritten = rewriteMslSource(source);
  declareUnwantedInstantiations(source, rewritten, {"add_f"});
  std::string expected = rewriteMslSource(source).text;
  expected.insert(expected.find("template [[host_name(\"add_i") == std::string::npos
                      ? expected.find("template __attribute__((msl_host_name(\"add_i")
                      : expected.find("template [[host_name(\"add_i"),
                  "extern ");
  expected.insert(expected.find("template __attribute__((msl_host_name(\"mul_f"), "extern ");
  EXPECT_EQ(rewritten.text, expected);
  // A column after the insertion is the user's column.
  size_t line2 = rewritten.text.find('\n') + 1;
  unsigned addI = unsigned(rewritten.text.find("add<int>", line2) - line2) + 1;
  EXPECT_EQ(rewritten.columns.originalColumn(2, addI), unsigned(source.find("add<int>", source.find('\n') + 1) -
                                                                 source.find('\n') - 1) + 1);
}

TEST(KernelSelection, MacroBodiesAndOtherLinesAreLeftAlone) {
  std::string source =
      "#define INSTANTIATE(n) \\\n"
      "template [[host_name(#n)]] [[kernel]] decltype(k<n>) k<n>;\n"
      "kernel void plain(device float* x [[buffer(0)]]) {}\n";
  RewrittenSource rewritten = rewriteMslSource(source);
  std::string before = rewritten.text;
  declareUnwantedInstantiations(source, rewritten, {"other"});
  EXPECT_EQ(rewritten.text, before);
}
