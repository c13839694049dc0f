// `c ? x : 0` with x a bfloat. In Metal bfloat is an arithmetic type, so the usual arithmetic
// conversions make the integer arm a bfloat. mslsim's bfloat is a class (Clang 16 has no bfloat
// arithmetic) that converts implicitly to float, and so to every arithmetic type, and from every
// integer type, as Apple's compiler converts bfloat; for a class operand C++ then finds both arms
// convertible to each other and calls the conditional ambiguous (ggml's bf16 matrix multiplication
// loads `in_range ? x[i] : 0`). Such a conditional is compiled again with the integer arm converted
// to the type the other arm has after promotion, `static_cast<decltype(+(x))>(0)`: the conversion
// the usual arithmetic conversions make, and in a template also for its other instantiations (an
// int arm beside a float stays float, beside a uchar becomes int).
#pragma once

#include <optional>
#include <string>

namespace clang {
class Diagnostic;
class LangOptions;
}  // namespace clang

namespace mslsim {

// Text to insert into a user file, at byte offsets of the text the compiler read.
struct ArmConversion {
  std::string file;
  unsigned begin = 0, end = 0;  // the integer arm: [begin, end)
  std::string before, after;    // inserted at begin and at end
};

// For Clang's "conditional expression is ambiguous" between a bfloat and an integer or bool arm,
// both written out in one file (not produced by a macro, no line break in the bfloat arm): the
// conversion to make. Nullopt for anything else.
std::optional<ArmConversion> bfloatConditionalArm(const clang::Diagnostic& info, const clang::LangOptions& lang);

}  // namespace mslsim
