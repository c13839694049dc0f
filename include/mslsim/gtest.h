// GoogleTest helpers for kernel tests. Include after <gtest/gtest.h>; link GTest::gtest.
//
//   mslsim::Report report = mslsim::Dispatch(kernel).bind(0, x).bind(1, y).run({n, 1, 1}, {64, 1, 1});
//   EXPECT_KERNEL_CLEAN(report);
//   EXPECT_ARRAY_NEAR(y, expected, 1e-6);          // absolute tolerance
//   EXPECT_ARRAY_ULP(y, expected, 2);               // within 2 units in the last place
//   EXPECT_KERNEL_REPORTS(report, "data-race");
//   EXPECT_OUTPUT_ULP(report, 1, y, expected, 0);   // mismatches name the thread that wrote them
//                                                   // (run with DispatchOptions::trackWriters)
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include <mslsim/mslsim.h>

namespace mslsim {
namespace testing {

inline ::testing::AssertionResult kernelClean(const char* expression, const Report& report) {
  if (!report.findings.empty() || !report.completed)
    return ::testing::AssertionFailure() << expression << " is not clean"
                                         << (report.completed ? "" : " (the kernel did not complete)") << ":\n"
                                         << report.text;
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult kernelReports(const char* expression, const char*, const Report& report,
                                                const std::string& kind) {
  if (report.hasFinding(kind)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expression << " has no '" << kind << "' finding; it has:\n"
                                       << (report.text.empty() ? std::string("no findings\n") : report.text);
}

// Distance in units in the last place between two floats of the array's element type.
inline double ulpDistance(DType dtype, double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return INFINITY;
  int exponent;
  std::frexp(std::max(std::fabs(a), std::fabs(b)), &exponent);
  int mantissa = dtype == DType::Float16 ? 10 : dtype == DType::BFloat16 ? 7 : dtype == DType::Float64 ? 52 : 23;
  return std::fabs(a - b) / std::ldexp(1.0, exponent - 1 - mantissa);
}

inline std::string coordinates(Size3 s) {
  return "(" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) + ")";
}

// Compares every element; on failure shows the first mismatches with both values, the count, and
// (given the writers of a Report made with DispatchOptions::trackWriters) the thread that wrote each.
template <class T>
::testing::AssertionResult arrayMatches(const char* expression, const HostArray& actual,
                                        const std::vector<T>& expected, double tolerance, bool ulps,
                                        const std::vector<ElementWriter>* writers = nullptr) {
  if (actual.count() != expected.size())
    return ::testing::AssertionFailure() << expression << " has " << actual.count() << " elements, expected "
                                         << expected.size();
  std::ostringstream diff;
  uint64_t mismatches = 0;
  for (uint64_t i = 0; i < expected.size(); ++i) {
    double got = actual.valueAt(i), want = double(expected[i]);
    double error = ulps ? ulpDistance(actual.dtype, got, want)
                        : ((std::isnan(got) && std::isnan(want)) ? 0 : std::fabs(got - want));
    if (!(error <= tolerance)) {
      if (mismatches < 10) {
        diff << "  [" << i << "] got " << got << ", expected " << want << " (" << (ulps ? "ulp " : "error ")
             << error << ")";
        if (writers && i < writers->size())
          diff << ((*writers)[i].written ? ", written by thread " + coordinates((*writers)[i].thread) +
                                               " of threadgroup " + coordinates((*writers)[i].threadgroup)
                                         : std::string(", never written by the kernel"));
        diff << "\n";
      }
      ++mismatches;
    }
  }
  if (!mismatches) return ::testing::AssertionSuccess();
  std::ostringstream limit;
  limit << tolerance;  // 1e-06, not 9.9999999999999995e-07
  return ::testing::AssertionFailure() << expression << ": " << mismatches << " of " << expected.size()
                                       << " elements differ by more than " << limit.str() << (ulps ? " ulp" : "")
                                       << ":\n"
                                       << diff.str();
}

}  // namespace testing
}  // namespace mslsim

#define EXPECT_KERNEL_CLEAN(report) EXPECT_PRED_FORMAT1(::mslsim::testing::kernelClean, report)
#define ASSERT_KERNEL_CLEAN(report) ASSERT_PRED_FORMAT1(::mslsim::testing::kernelClean, report)
#define EXPECT_KERNEL_REPORTS(report, kind) EXPECT_PRED_FORMAT2(::mslsim::testing::kernelReports, report, kind)
// The failure message is the comparison's own (no "Value of: ... Expected: true").
#define MSLSIM_EXPECT_MATCH_(result)                    \
  do {                                                  \
    ::testing::AssertionResult mslsim_result_ = result; \
    if (!mslsim_result_) ADD_FAILURE() << mslsim_result_.message(); \
  } while (0)
#define EXPECT_ARRAY_NEAR(actual, expected, tolerance) \
  MSLSIM_EXPECT_MATCH_(::mslsim::testing::arrayMatches(#actual, actual, expected, tolerance, false))
#define EXPECT_ARRAY_ULP(actual, expected, ulps) \
  MSLSIM_EXPECT_MATCH_(::mslsim::testing::arrayMatches(#actual, actual, expected, ulps, true))
// The same for buffer `index` of a dispatch run with trackWriters: mismatches name their writer.
#define EXPECT_OUTPUT_NEAR(report, index, actual, expected, tolerance)                              \
  MSLSIM_EXPECT_MATCH_(::mslsim::testing::arrayMatches(                                             \
      #actual, actual, expected, tolerance, false,                                                  \
      (report).writers.count(index) ? &(report).writers.at(index) : nullptr))
#define EXPECT_OUTPUT_ULP(report, index, actual, expected, ulps)                                    \
  MSLSIM_EXPECT_MATCH_(::mslsim::testing::arrayMatches(                                             \
      #actual, actual, expected, ulps, true,                                                        \
      (report).writers.count(index) ? &(report).writers.at(index) : nullptr))
