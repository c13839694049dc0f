#include <gtest/gtest.h>

#include "Executor.h"

using namespace mslsim;

namespace {
Size3 value(const DispatchGeometry& g, BuiltinValue b, Size3 group, Size3 local) {
  Size3 size = g.threadgroupSize(group);
  uint32_t linear = local[0] + local[1] * size[0] + local[2] * size[0] * size[1];
  Size3 out{0, 0, 0};
  g.writeBuiltin(b, group, size, local, linear, 3, 4, out.data());
  return out;
}
}  // namespace

TEST(DispatchGeometry, ThreadsModeHasSmallerEdgeThreadgroups) {
  DispatchGeometry g(DispatchMode::Threads, {100, 10, 1}, {32, 4, 1});
  EXPECT_EQ(g.threadgroupCount(), (Size3{4, 3, 1}));
  EXPECT_EQ(g.threadgroupSize({3, 2, 0}), (Size3{4, 2, 1}));  // 100 - 96, 10 - 8
  EXPECT_EQ(g.threadgroupSize({0, 0, 0}), (Size3{32, 4, 1}));
  EXPECT_EQ(value(g, BuiltinValue::ThreadsPerThreadgroup, {3, 2, 0}, {0, 0, 0}), (Size3{4, 2, 1}));
  EXPECT_EQ(value(g, BuiltinValue::DispatchThreadsPerThreadgroup, {3, 2, 0}, {0, 0, 0}), (Size3{32, 4, 1}));
  EXPECT_EQ(value(g, BuiltinValue::ThreadsPerGrid, {0, 0, 0}, {0, 0, 0}), (Size3{100, 10, 1}));
  EXPECT_EQ(value(g, BuiltinValue::ThreadPositionInGrid, {3, 2, 0}, {3, 1, 0}), (Size3{99, 9, 0}));
}

TEST(DispatchGeometry, ThreadgroupsModeCountsGroups) {
  DispatchGeometry g(DispatchMode::Threadgroups, {3, 2, 1}, {8, 8, 1});
  EXPECT_EQ(g.threadgroupCount(), (Size3{3, 2, 1}));
  EXPECT_EQ(g.threadgroupSize({2, 1, 0}), (Size3{8, 8, 1}));
  EXPECT_EQ(value(g, BuiltinValue::ThreadsPerGrid, {0, 0, 0}, {0, 0, 0}), (Size3{24, 16, 1}));
}

TEST(DispatchGeometry, SimdLanesAreConsecutiveLinearIndicesOfTheActualGroup) {
  DispatchGeometry g(DispatchMode::Threads, {10, 10, 1}, {8, 8, 1});
  // Edge group (1,1) is 2x2: thread (1,1) has linear index 1 + 1*2 = 3.
  EXPECT_EQ(value(g, BuiltinValue::ThreadIndexInThreadgroup, {1, 1, 0}, {1, 1, 0})[0], 3u);
  // Full group: thread (3,4) has linear index 35 -> SIMD-group 1, lane 3.
  EXPECT_EQ(value(g, BuiltinValue::ThreadIndexInSimdgroup, {0, 0, 0}, {3, 4, 0})[0], 3u);
  EXPECT_EQ(value(g, BuiltinValue::SimdgroupIndexInThreadgroup, {0, 0, 0}, {3, 4, 0})[0], 1u);
  EXPECT_EQ(value(g, BuiltinValue::ThreadsPerSimdgroup, {1, 1, 0}, {0, 0, 0})[0], 32u);
}

TEST(DispatchGeometry, UshortComponentsArePacked) {
  DispatchGeometry g(DispatchMode::Threads, {70000, 1, 1}, {256, 1, 1});
  uint16_t out[4] = {0, 0, 0, 0};
  g.writeBuiltin(BuiltinValue::ThreadPositionInThreadgroup, {1, 0, 0}, {256, 1, 1}, {5, 0, 0}, 5, 3, 2, out);
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], 0);
}
