// Testing a .metal kernel from C++: compile, bind host vectors, dispatch, compare, check.
#include <gtest/gtest.h>

#include <mslsim/gtest.h>
#include <mslsim/mslsim.h>

namespace {

const mslsim::Library& library() {
  static mslsim::Library l = mslsim::Library::compileFile(KERNEL_DIR "/saxpy.metal");
  return l;
}

TEST(Saxpy, MatchesAHostLoopAndRunsClean) {
  const uint32_t n = 1000;  // not a multiple of the threadgroup size
  std::vector<float> x(n), y(n), expected(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = 0.5f * float(i);
    y[i] = 1.0f - float(i);
    expected[i] = 2.0f * x[i] + y[i];
  }
  mslsim::HostArray xs = mslsim::HostArray::of(x), ys = mslsim::HostArray::of(y);
  mslsim::HostArray a = mslsim::HostArray::scalar(2.0f), count = mslsim::HostArray::scalar(n);
  mslsim::DispatchOptions options;
  options.checks = mslsim::CheckSet::all();
  mslsim::Report report = mslsim::Dispatch(library().kernel("saxpy"))
                              .bind("x", xs)
                              .bind("y", ys)
                              .bind(2, a)
                              .bind(3, count)
                              .run({n, 1, 1}, {256, 1, 1}, mslsim::DispatchMode::Threads, options);
  EXPECT_KERNEL_CLEAN(report);
  EXPECT_ARRAY_ULP(ys, expected, 0);
}

TEST(Saxpy, TheRacyVersionIsReported) {
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  mslsim::HostArray xs = mslsim::HostArray::of(x), ys = mslsim::HostArray::of(y);
  mslsim::HostArray a = mslsim::HostArray::scalar(1.0f), count = mslsim::HostArray::scalar(uint32_t(64));
  mslsim::DispatchOptions options;
  options.checks = mslsim::CheckSet::all();
  mslsim::Report report = mslsim::Dispatch(library().kernel("saxpy_racy"))
                              .bind(0, xs).bind(1, ys).bind(2, a).bind(3, count)
                              .run({64, 1, 1}, {64, 1, 1}, mslsim::DispatchMode::Threads, options);
  EXPECT_KERNEL_REPORTS(report, "data-race");
  EXPECT_TRUE(report.hasErrors());
}

TEST(Saxpy, BindingMistakesNameTheArgument) {
  mslsim::HostArray ints = mslsim::HostArray::of(std::vector<int32_t>{1, 2, 3});
  mslsim::Dispatch d(library().kernel("saxpy"));
  EXPECT_THROW(d.bind("nope", ints), mslsim::Error);
  d.bind(0, ints);
  try {
    d.run({3, 1, 1}, {3, 1, 1});
    FAIL() << "expected an error";
  } catch (const mslsim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'x'"), std::string::npos) << e.what();
  }
}

TEST(Saxpy, CompileErrorsAreValuesWithPositions) {
  try {
    mslsim::Library::compileSource("broken.metal", "kernel void k(device float* o [[buffer(0)]]) { o[0] = x; }");
    FAIL();
  } catch (const mslsim::CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(e.diagnostics()[0].where.file, "broken.metal");
    EXPECT_EQ(e.diagnostics()[0].where.column, 55u);  // the `x`
  }
}

}  // namespace

namespace {

// The helpers' failure messages name the thread that wrote a wrong element: checked here on a
// deliberately wrong expectation (the assertion result is inspected, not asserted).
TEST(Saxpy, MismatchesNameTheThreadThatWroteThem) {
  std::vector<float> x(64, 1.0f), y(64, 0.0f), expected(64, 2.0f);
  expected[40] = 99.0f;
  mslsim::HostArray xs = mslsim::HostArray::of(x), ys = mslsim::HostArray::of(y);
  mslsim::HostArray a = mslsim::HostArray::scalar(2.0f), count = mslsim::HostArray::scalar(uint32_t(64));
  mslsim::DispatchOptions options;
  options.trackWriters = true;
  mslsim::Report report = mslsim::Dispatch(library().kernel("saxpy"))
                              .bind(0, xs).bind(1, ys).bind(2, a).bind(3, count)
                              .run({64, 1, 1}, {32, 1, 1}, mslsim::DispatchMode::Threads, options);
  EXPECT_KERNEL_CLEAN(report);
  ::testing::AssertionResult r =
      mslsim::testing::arrayMatches("ys", ys, expected, 0.0, false, &report.writers.at(1));
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("[40] got 2, expected 99 (error 97), written by thread (8,0,0) of threadgroup (1,0,0)"),
            std::string::npos)
      << r.message();
}

}  // namespace
