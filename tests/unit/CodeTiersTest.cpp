// Code tiers (docs/architecture.md, "Code tiers"): the quick and the optimised code compute the same
// bytes (checked here against a C++ loop, never against each other alone), and a library built
// with TierPolicy::Adaptive starts in the quick code and moves to the optimised code when a
// dispatch is large enough or its kernel's quick dispatches have cost what the optimised build is
// expected to.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <mslsim/mslsim.h>

using namespace mslsim;

namespace {

// Integer work (exact in every tier) with a threadgroup barrier, so that the quick tier's fibers
// and the optimised tier's region loops are both exercised: each thread hashes its index, each
// threadgroup sums its threads' hashes.
const char* kHashSums = R"(
#include <metal_stdlib>
using namespace metal;
kernel void hash_sums(device uint* sums [[buffer(0)]], constant uint& rounds [[buffer(1)]],
                      threadgroup uint* partial [[threadgroup(0)]],
                      uint i [[thread_position_in_grid]], uint t [[thread_index_in_threadgroup]],
                      uint g [[threadgroup_position_in_grid]], uint n [[threads_per_threadgroup]]) {
  uint h = i * 2654435761u + 1u;
  for (uint r = 0; r < rounds; ++r) { h ^= h << 13; h ^= h >> 17; h ^= h << 5; }
  partial[t] = h;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = n / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (t == 0) sums[g] = partial[0];
}
)";

constexpr uint32_t kGroup = 64;

std::vector<uint32_t> expectedSums(uint32_t groups, uint32_t rounds) {
  std::vector<uint32_t> sums(groups, 0);
  for (uint32_t i = 0; i < groups * kGroup; ++i) {
    uint32_t h = i * 2654435761u + 1u;
    for (uint32_t r = 0; r < rounds; ++r) {
      h ^= h << 13;
      h ^= h >> 17;
      h ^= h << 5;
    }
    sums[i / kGroup] += h;
  }
  return sums;
}

// One dispatch of `groups` threadgroups; expects the C++ loop's sums and a clean report.
Report runHashSums(const Kernel& kernel, uint32_t groups, uint32_t rounds) {
  HostArray sums = HostArray::of(std::vector<uint32_t>(groups, 0));
  HostArray roundCount = HostArray::scalar(rounds);
  Report report = Dispatch(kernel)
                      .bind(0, sums)
                      .bind(1, roundCount)
                      .threadgroupMemory(0, kGroup * sizeof(uint32_t))
                      .run({groups, 1, 1}, {kGroup, 1, 1}, DispatchMode::Threadgroups);
  EXPECT_TRUE(report.completed);
  EXPECT_FALSE(report.hasErrors()) << report.text;
  EXPECT_EQ(sums.values<uint32_t>(), expectedSums(groups, rounds)) << "in the " << report.codeTier << " code";
  return report;
}

// Each test builds text of its own (a macro only it defines), so that no other test's code, in this
// process or in the compile cache, is found in its place (ctest also runs this binary with the
// disk cache off).
Library build(TierPolicy tiers, const std::string& test, bool checked = true) {
  BuildOptions options;
  options.tiers = tiers;
  options.checked = checked;
  options.defines = {"CODE_TIERS_TEST_" + test};
  return Library::compileSource("hash_sums.metal", kHashSums, options);
}

}  // namespace

TEST(CodeTiers, EachTierComputesWhatTheReferenceLoopDoes) {
  for (bool checked : {true, false}) {
    EXPECT_EQ(runHashSums(build(TierPolicy::Quick, "EachTier", checked).kernel("hash_sums"), 7, 9).codeTier, "quick");
    EXPECT_EQ(runHashSums(build(TierPolicy::Optimised, "EachTier", checked).kernel("hash_sums"), 7, 9).codeTier,
              "optimised");
  }
}

TEST(CodeTiers, AdaptiveRunsSmallDispatchesInTheQuickCode) {
  Kernel kernel = build(TierPolicy::Adaptive, "Small").kernel("hash_sums");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(runHashSums(kernel, 2, 3).codeTier, "quick");
}

TEST(CodeTiers, AdaptiveTakesTheOptimisedCodeAnEarlierBuildLeft) {
  build(TierPolicy::Optimised, "Earlier");
  EXPECT_EQ(runHashSums(build(TierPolicy::Adaptive, "Earlier").kernel("hash_sums"), 2, 3).codeTier, "optimised");
}

TEST(CodeTiers, AdaptiveMakesTheOptimisedCodeAtOnceForAMillionThreads) {
  Kernel kernel = build(TierPolicy::Adaptive, "Million").kernel("hash_sums");
  EXPECT_EQ(runHashSums(kernel, (1u << 20) / kGroup, 1).codeTier, "optimised");
  EXPECT_EQ(runHashSums(kernel, 1, 1).codeTier, "optimised");  // and stays there
}

TEST(CodeTiers, AdaptiveMovesToTheOptimisedCodeOnceQuickDispatchesHaveCostEnough) {
  Kernel kernel = build(TierPolicy::Adaptive, "Cost").kernel("hash_sums");
  // Each dispatch takes milliseconds in the quick code; the rule moves to the optimised code once
  // their sum reaches its estimate of the optimised build. The bound only stops a broken rule.
  int dispatches = 0;
  double quickMs = 0;
  std::string tier = "quick";
  while (tier == "quick" && dispatches < 2000) {
    Report r = runHashSums(kernel, 16, 4000);
    tier = r.codeTier;
    if (tier == "quick") quickMs += r.milliseconds;
    ++dispatches;
  }
  EXPECT_EQ(tier, "optimised") << "after " << dispatches << " dispatches, " << quickMs << " ms in quick code";
  EXPECT_GT(dispatches, 1) << "the first dispatch was quick";
}
