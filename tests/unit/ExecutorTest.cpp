// The execution model: barriers, SIMD-groups, partial groups, divergence, timeouts.
#include <gtest/gtest.h>

#include <vector>

#include "Program.h"

using namespace mslsim;

namespace {

struct KernelRun {
  DispatchResult result;
  std::vector<float> out;
};

KernelRun runKernel(const std::string& body, uint32_t grid, uint32_t tg, size_t outCount,
              double timeout = 60, Schedule schedule = Schedule(), CheckSet checks = CheckSet(), unsigned workers = 0) {
  std::string source = "#include <metal_stdlib>\nusing namespace metal;\n" + body;
  auto p = Program::compileSource("/virtual/exec.metal", source, {}, checks.needsInstrumentation());
  HostArray out = HostArray::filled(DType::Float32, outCount, -1);
  Launch launch(p->kernel("k"));
  launch.bindBuffer(0, out, "out");
  KernelRun r;
  DispatchOptions options;
  options.timeoutSeconds = timeout;
  options.schedule = schedule;
  options.checks = checks;
  options.workers = workers;
  r.result = launch.run(DispatchMode::Threads, {grid, 1, 1}, {tg, 1, 1}, options);
  for (uint64_t i = 0; i < out.count(); ++i) r.out.push_back(float(out.valueAt(i)));
  return r;
}

// A kernel's per-thread code: its own, or (a kernel the vectoriser took) the build made for it.
const ExecutableKernel& perThreadCode(const ExecutableKernel& k) { return k.perThreadCode ? k : k.withPerThreadCode(); }

bool hasFinding(const DispatchResult& r, const std::string& kind, Finding::Severity s) {
  for (auto& f : r.findings)
    if (f.kind == kind && f.severity == s) return true;
  return false;
}

}  // namespace

TEST(Executor, ThreadgroupBarrierOrdersWritesBeforeReads) {
  // Each thread reads its neighbour's slot, written before the barrier by another thread.
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]],
              uint n [[threads_per_threadgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float slots[64];
  slots[i] = float(g);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[g] = slots[(i + 1) % n];
})", 100, 64, 100);
  ASSERT_FALSE(r.result.hasErrors());
  for (uint32_t g = 0; g < 100; ++g) {
    uint32_t base = g / 64 * 64, n = g < 64 ? 64 : 36;
    EXPECT_EQ(r.out[g], float(base + (g - base + 1) % n)) << g;
  }
}

TEST(Executor, SimdSumCoversTheActiveLanesOfAPartialSimdGroup) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint g [[thread_position_in_grid]]) {
  out[g] = simd_sum(float(g));
})", 40, 40, 40);
  ASSERT_FALSE(r.result.hasErrors());
  EXPECT_EQ(r.out[0], 496.0f);           // 0 + ... + 31
  EXPECT_EQ(r.out[39], 32.0f + 33 + 34 + 35 + 36 + 37 + 38 + 39);  // lanes 32..39 only
}

TEST(Executor, SimdFunctionsInDifferentBranchesFormSeparateActiveSets) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint lane [[thread_index_in_simdgroup]]) {
  if (lane < 8) out[lane] = simd_sum(1.0f);
  else          out[lane] = simd_sum(2.0f);
})", 32, 32, 32);
  EXPECT_EQ(r.out[0], 8.0f);
  EXPECT_EQ(r.out[31], 48.0f);
}

TEST(Executor, ThreadsAtDifferentBarriersAreABarrierDivergenceError) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]]) {
  if (i < 16) threadgroup_barrier(mem_flags::mem_threadgroup);
  else        threadgroup_barrier(mem_flags::mem_device);
  out[i] = 1;
})", 32, 32, 32);
  EXPECT_TRUE(hasFinding(r.result, "barrier-divergence", Finding::Severity::Error));
  ASSERT_FALSE(r.result.findings.empty());
  EXPECT_EQ(r.result.findings[0].locations.size(), 2u);
  EXPECT_EQ(r.result.findings[0].locations[0].line, 5u);
  EXPECT_EQ(r.result.findings[0].locations[1].line, 6u);
}

// A stopping error ends the dispatch at the first threadgroup (in dispatch order) that has one:
// what is reported is what one worker running the threadgroups in order finds, however many run.
TEST(Executor, AStoppingErrorGivesTheSameReportWhateverTheNumberOfWorkers) {
  const char* kernel = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]],
              uint g [[thread_position_in_grid]]) {
  float acc = 0;    // enough work that the threadgroups of two workers overlap
  for (uint k = 0; k < 20000; ++k) acc = acc * 0.5f + float(k & 7);
  out[g + 1] = acc; // one past the end in the last threadgroup: not reached, the dispatch stops first
  if (i < 16) threadgroup_barrier(mem_flags::mem_threadgroup);
  else        threadgroup_barrier(mem_flags::mem_device);
})";
  CheckSet checks;  // bounds, sync
  KernelRun one = runKernel(kernel, 256, 32, 256, 60, Schedule(), checks, 1);
  ASSERT_EQ(one.result.findings.size(), 1u);
  EXPECT_EQ(one.result.findings[0].kind, "barrier-divergence");
  EXPECT_EQ(one.result.findings[0].count, 1u);
  EXPECT_NE(one.result.findings[0].message.find("of threadgroup (0,0,0)"), std::string::npos);
  for (int run = 0; run < 20; ++run) {
    KernelRun two = runKernel(kernel, 256, 32, 256, 60, Schedule(), checks, 2);
    ASSERT_EQ(two.result.findings.size(), 1u) << "run " << run;
    EXPECT_EQ(two.result.findings[0].message, one.result.findings[0].message) << "run " << run;
    EXPECT_EQ(two.result.findings[0].count, 1u) << "run " << run;
  }
}

TEST(Executor, ABarrierSkippedByReturningThreadsIsAWarningAndTheOthersRunOn) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  if (i >= 20) return;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = 2;
})", 32, 32, 32);
  EXPECT_FALSE(r.result.hasErrors());
  EXPECT_TRUE(hasFinding(r.result, "barrier-divergence", Finding::Severity::Warning));
  EXPECT_EQ(r.out[19], 2.0f);
  EXPECT_EQ(r.out[20], -1.0f);
}

TEST(Executor, AnEndlessLoopIsStoppedByTheTimeout) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  volatile uint spin = 1;
  while (spin) { }
  out[i] = 3;
})", 4, 4, 4, /*timeout=*/0.5);
  EXPECT_TRUE(hasFinding(r.result, "timeout", Finding::Severity::Error));
  EXPECT_FALSE(r.result.completed);
  // The report names the loop the thread was still running (checked builds have line tables).
  ASSERT_EQ(r.result.findings.size(), 1u);
  ASSERT_EQ(r.result.findings[0].locations.size(), 1u);
  EXPECT_EQ(r.result.findings[0].locations[0].line, 6u);
}

TEST(Executor, AnEndlessLoopAfterABarrierIsStoppedToo) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup_barrier(mem_flags::mem_threadgroup);
  volatile uint spin = 1;
  while (spin) { }
  out[i] = 3;
})", 64, 32, 64, /*timeout=*/0.5);
  EXPECT_TRUE(hasFinding(r.result, "timeout", Finding::Severity::Error));
  // A kernel with a barrier runs as a coroutine, whose IR loses its line tables: the loop's
  // position is kept for the report all the same.
  ASSERT_EQ(r.result.findings.size(), 1u);
  ASSERT_EQ(r.result.findings[0].locations.size(), 1u);
  EXPECT_EQ(r.result.findings[0].locations[0].line, 7u);
}

TEST(Executor, ThreadgroupLimitsAreMetalsLimits) {
  EXPECT_TRUE(runKernel("kernel void k(device float* o [[buffer(0)]]) {}", 2048, 2048, 1)
                  .result.hasErrors());
  KernelRun big = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup float big[9000];
  big[i] = 1;
  out[0] = big[0];
})", 1, 1, 1);
  EXPECT_TRUE(hasFinding(big.result, "threadgroup-memory-limit", Finding::Severity::Error));
}

TEST(Executor, IntegerDivisionByZeroIsAFindingNotACrash) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  volatile uint zero = 0;
  out[i] = float(i / zero);
})", 4, 4, 4);
  EXPECT_TRUE(hasFinding(r.result, "integer-division-by-zero", Finding::Severity::Error));
}

TEST(Executor, AWildPointerIsAFindingNotACrash) {
  const char* wild = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup_barrier(mem_flags::mem_threadgroup);
  device float* wild = (device float*)(16);
  out[i] = wild[i];
})";
  // With bounds checks (the default) the access is refused before it happens...
  KernelRun checked = runKernel(wild, 64, 32, 64);
  EXPECT_TRUE(hasFinding(checked.result, "out-of-bounds", Finding::Severity::Error));
  // ...without them the hardware fault is caught.
  KernelRun r = runKernel(wild, 64, 32, 64, 60, Schedule(), CheckSet::none());
  EXPECT_TRUE(hasFinding(r.result, "invalid-memory-access", Finding::Severity::Error));
  // The process goes on: the next dispatch runs normally.
  KernelRun ok = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) { out[i] = 5; })",
                           4, 4, 4);
  EXPECT_FALSE(ok.result.hasErrors());
  EXPECT_EQ(ok.out[3], 5.0f);
}

TEST(Executor, UncheckedAccessesPastABufferReachTheEndOfItsGpuPageAsOnAppleGpus) {
  // A buffer of 10 floats. Metal maps buffers in 16 KiB pages: without the bounds check, the rest
  // of the page reads as zeros (and takes writes) and the program runs on, as on a Mac; the first
  // byte past the page faults. With the bounds check, a read past the 10 floats is a finding.
  const char* inThePage = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = out[i + 10] + out[i + 4095] + 7;  // 4,096 floats are 16 KiB
  out[i + 20] = 1;
})";
  const char* pastThePage = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  out[i] = out[i + 4096] + 7;
})";
  KernelRun unchecked = runKernel(inThePage, 1, 1, 10, 60, Schedule(), CheckSet::none());
  EXPECT_TRUE(unchecked.result.findings.empty());
  EXPECT_EQ(unchecked.out[0], 7.0f);
  EXPECT_EQ(unchecked.out[1], -1.0f);  // the buffer's other values as they were
  KernelRun checked = runKernel(inThePage, 1, 1, 10);
  EXPECT_TRUE(hasFinding(checked.result, "out-of-bounds", Finding::Severity::Error));
  KernelRun fault = runKernel(pastThePage, 1, 1, 10, 60, Schedule(), CheckSet::none());
  EXPECT_TRUE(hasFinding(fault.result, "invalid-memory-access", Finding::Severity::Error));
  // Threadgroup memory is not mapped in pages: its first byte past the end faults.
  KernelRun threadgroup = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup float t[10];
  threadgroup float* p = t;
  volatile uint far = 64;
  p[i] = 1;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = p[i + far];
})", 1, 1, 10, 60, Schedule(), CheckSet::none());
  EXPECT_TRUE(hasFinding(threadgroup.result, "invalid-memory-access", Finding::Severity::Error));
}

TEST(Executor, AThreadWithTooMuchPrivateMemoryIsAFinding) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float big[200000];
  for (uint j = 0; j < 200000; ++j) big[j] = float(j + i);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = big[(i * 7919) % 200000];
})", 2, 2, 2);
  EXPECT_TRUE(hasFinding(r.result, "stack-overflow", Finding::Severity::Error));
}

TEST(Executor, SchedulesChangeOnlyOrderDependentResults) {
  const char* withBarrier = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float slots[64];
  slots[i] = float(g);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[g] = slots[(i + 1) % 64] + simd_sum(1.0f);
})";
  const char* withoutBarrier = R"(
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float slots[64];
  slots[i] = float(g);
  out[g] = slots[(i + 1) % 64] + simd_sum(1.0f);
})";
  Schedule reverse{Schedule::Order::Reverse, 0}, random{Schedule::Order::Random, 7};
  KernelRun a = runKernel(withBarrier, 256, 64, 256), b = runKernel(withBarrier, 256, 64, 256, 60, reverse),
            c = runKernel(withBarrier, 256, 64, 256, 60, random);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out, c.out);
  KernelRun x = runKernel(withoutBarrier, 256, 64, 256), y = runKernel(withoutBarrier, 256, 64, 256, 60, reverse);
  EXPECT_NE(x.out, y.out);
}

TEST(Executor, SynchronisingKernelsRunAsCoroutinesAndFallBackToFibers) {
  // A barrier reached through recursion cannot be inlined into the kernel, so that kernel's
  // threads cannot be coroutines (MSL forbids recursion; Clang accepts it): they run on fibers,
  // with the same results.
  const char* inlinable = R"(
void exchange(threadgroup float* slots, uint i) { threadgroup_barrier(mem_flags::mem_threadgroup); }
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float slots[64];
  slots[i] = float(g);
  exchange(slots, i);
  out[g] = slots[(i + 1) % 64] + simd_sum(1.0f);
})";
  const char* recursive = R"(
void exchange(threadgroup float* slots, uint i, int depth) {
  if (depth > 0) exchange(slots, i, depth - 1); else threadgroup_barrier(mem_flags::mem_threadgroup);
}
kernel void k(device float* out [[buffer(0)]], uint i [[thread_index_in_threadgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float slots[64];
  slots[i] = float(g);
  exchange(slots, i, 2);
  out[g] = slots[(i + 1) % 64] + simd_sum(1.0f);
})";
  auto compile = [](const char* body) {
    return Program::compileSource("/virtual/exec.metal", std::string("#include <metal_stdlib>\nusing namespace metal;\n") + body, {}, false);
  };
  EXPECT_EQ(perThreadCode(compile(inlinable)->kernel("k")).scheduling, ThreadScheduling::Coroutines);
  EXPECT_EQ(perThreadCode(compile(recursive)->kernel("k")).scheduling, ThreadScheduling::Fibers);
  KernelRun a = runKernel(inlinable, 128, 64, 128), b = runKernel(recursive, 128, 64, 128);
  ASSERT_FALSE(a.result.hasErrors());
  ASSERT_FALSE(b.result.hasErrors());
  for (uint32_t g = 0; g < 128; ++g) EXPECT_EQ(a.out[g], float(g / 64 * 64 + (g % 64 + 1) % 64) + 32.0f) << g;
  EXPECT_EQ(a.out, b.out);
}

TEST(Executor, AKernelThatRunsAsVectorLanesGetsItsPerThreadCodeWhenADispatchFirstNeedsIt) {
  // An optimised build makes a kernel the vectoriser takes as vector lanes alone (CodePaths):
  // what a dispatch in the default order under the default checks runs. A dispatch that runs the
  // threads one by one (the race check, another order, --simd-lanes threads) first makes the
  // kernel's per-thread build, once; every path gives the same sums.
  const char* kernel = R"(
kernel void k(device float* out [[buffer(0)]], uint g [[thread_position_in_grid]],
              uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float part[2];
  const float s = simd_sum(float(g % 7));
  if (lane == 0) part[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[g] = part[0] + part[1] + float(lane);
})";
  auto p = Program::compileSource("/virtual/paths.metal", std::string("#include <metal_stdlib>\nusing namespace metal;\n") + kernel);
  const ExecutableKernel& lanes = p->kernel("k");
  ASSERT_TRUE(lanes.simdGroupFunction.has_value());
  EXPECT_FALSE(lanes.perThreadCode);
  const ExecutableKernel& threads = lanes.withPerThreadCode();
  EXPECT_TRUE(threads.perThreadCode);
  EXPECT_FALSE(threads.simdGroupFunction.has_value());
  EXPECT_EQ(&lanes.withPerThreadCode(), &threads);  // made once
  std::vector<float> expected(256);
  for (uint32_t g = 0; g < 256; ++g) {
    float group = 0;
    for (uint32_t t = g / 64 * 64; t < g / 64 * 64 + 64; ++t) group += float(t % 7);
    expected[g] = group + float(g % 32);
  }
  struct Way {
    const char* name;
    CheckSet checks;
    Schedule schedule;
    bool vectorLanes;
    const char* path;
  };
  CheckSet races;
  races.races = true;
  for (const Way& way : {Way{"default checks", CheckSet(), Schedule(), true, "vector lanes"},
                         Way{"the race check", races, Schedule(), true, "coroutines"},
                         Way{"all checks", CheckSet::all(), Schedule(), true, "coroutines"},
                         Way{"reverse order", CheckSet::none(), Schedule{Schedule::Order::Reverse, 0}, true, "coroutines"},
                         Way{"--simd-lanes threads", CheckSet::none(), Schedule(), false, "coroutines"}}) {
    SCOPED_TRACE(way.name);
    auto program = way.checks.needsInstrumentation() ? p : Program::compileSource("/virtual/paths.metal",
        std::string("#include <metal_stdlib>\nusing namespace metal;\n") + kernel, {}, false);
    HostArray out = HostArray::filled(DType::Float32, 256, -1);
    Launch launch(program->kernel("k"));
    launch.bindBuffer(0, out, "out");
    DispatchOptions options;
    options.checks = way.checks;
    options.schedule = way.schedule;
    options.vectorLanes = way.vectorLanes;
    DispatchResult r = launch.run(DispatchMode::Threads, {256, 1, 1}, {64, 1, 1}, options);
    ASSERT_FALSE(r.hasErrors());
    EXPECT_EQ(r.path, way.path);
    for (uint32_t g = 0; g < 256; ++g) EXPECT_EQ(float(out.valueAt(g)), expected[g]) << "thread " << g;
  }
}

TEST(Executor, TheThreadLoopGivesEveryThreadItsOwnBuiltins) {
  // Unchecked builds of kernels without synchronisation run a threadgroup as one JIT'd loop that
  // computes the per-thread built-ins itself; other schedules call the kernel once per thread.
  // Both must agree with Metal's definitions, here on a 3-D dispatch with partial edge groups.
  const std::string source = R"(#include <metal_stdlib>
using namespace metal;
kernel void k(device uint* out [[buffer(0)]], uint3 gid [[thread_position_in_grid]],
              ushort3 lid [[thread_position_in_threadgroup]], uint3 tg [[threadgroup_position_in_grid]],
              uint tidx [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],
              uint sg [[simdgroup_index_in_threadgroup]], uint3 size [[threads_per_grid]]) {
  uint i = (gid.z * size.y + gid.y) * size.x + gid.x;
  out[8 * i + 0] = gid.x; out[8 * i + 1] = gid.y; out[8 * i + 2] = gid.z;
  out[8 * i + 3] = lid.x + 100 * lid.y + 10000 * lid.z;
  out[8 * i + 4] = tg.x + 100 * tg.y + 10000 * tg.z;
  out[8 * i + 5] = tidx; out[8 * i + 6] = lane; out[8 * i + 7] = sg;
})";
  const Size3 grid{37, 5, 3}, tg{8, 4, 2};
  uint64_t threads = uint64_t(grid[0]) * grid[1] * grid[2];
  std::vector<uint32_t> expected(8 * threads);
  for (uint32_t z = 0; z < grid[2]; ++z)
    for (uint32_t y = 0; y < grid[1]; ++y)
      for (uint32_t x = 0; x < grid[0]; ++x) {
        uint64_t i = (uint64_t(z) * grid[1] + y) * grid[0] + x;
        uint32_t lx = x % tg[0], ly = y % tg[1], lz = z % tg[2];
        uint32_t width = std::min(tg[0], grid[0] - x / tg[0] * tg[0]);   // edge groups are smaller
        uint32_t height = std::min(tg[1], grid[1] - y / tg[1] * tg[1]);
        uint32_t linear = (lz * height + ly) * width + lx;
        uint32_t values[8] = {x, y, z, lx + 100 * ly + 10000 * lz,
                              x / tg[0] + 100 * (y / tg[1]) + 10000 * (z / tg[2]), linear, linear % 32, linear / 32};
        std::copy(values, values + 8, expected.begin() + 8 * i);
      }
  for (auto order : {Schedule::Order::InOrder, Schedule::Order::Reverse}) {
    auto p = Program::compileSource("/virtual/loop.metal", source, {}, false);
    EXPECT_TRUE(p->kernel("k").hasThreadLoop);
    HostArray out = HostArray::filled(DType::UInt32, 8 * threads, 0);
    Launch launch(p->kernel("k"));
    launch.bindBuffer(0, out, "out");
    DispatchOptions options;
    options.checks = CheckSet::none();
    options.schedule = Schedule{order, 0};
    DispatchResult r = launch.run(DispatchMode::Threads, grid, tg, options);
    ASSERT_FALSE(r.hasErrors());
    for (uint64_t i = 0; i < expected.size(); ++i)
      ASSERT_EQ(uint32_t(out.valueAt(i)), expected[i]) << "thread " << i / 8 << " value " << i % 8 << " order " << int(order);
  }
}

TEST(Executor, BarrierOnlyKernelsRunRegionByRegionWhenUnchecked) {
  // Unchecked builds of kernels whose only synchronisation is threadgroup_barrier run each
  // barrier-to-barrier region for all threads in one JIT'd loop; the other schedules and checked
  // builds resume threads one by one. All must give the tree reduction's sums.
  const char* reduction = R"(
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]],
              uint tg [[threadgroup_position_in_grid]], uint n [[threads_per_threadgroup]]) {
  threadgroup float partial[64];
  partial[lid] = float(tg * 1000 + lid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = 32; stride > 0; stride >>= 1) {
    if (lid < stride && lid + stride < n) partial[lid] += partial[lid + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[tg * 64 + lid] = partial[0];
})";
  auto p = Program::compileSource("/virtual/regions.metal", std::string("#include <metal_stdlib>\nusing namespace metal;\n") + reduction, {}, false);
  EXPECT_TRUE(perThreadCode(p->kernel("k")).regionLoopLayout.has_value());
  std::vector<float> expected(64 * 5);
  for (uint32_t g = 0; g < 5; ++g) {
    uint32_t n = g < 4 ? 64 : 300 - 256;  // the last threadgroup is partial
    float sum = 0;
    for (uint32_t l = 0; l < n; ++l) sum += float(g * 1000 + l);
    for (uint32_t l = 0; l < n; ++l) expected[g * 64 + l] = sum;
    for (uint32_t l = n; l < 64; ++l) expected[g * 64 + l] = -1;
  }
  Schedule reverse{Schedule::Order::Reverse, 0};
  KernelRun regions = runKernel(reduction, 300, 64, 320, 60, Schedule(), CheckSet::none());
  KernelRun oneByOne = runKernel(reduction, 300, 64, 320, 60, reverse, CheckSet::none());
  KernelRun checked = runKernel(reduction, 300, 64, 320);
  for (auto* r : {&regions, &oneByOne, &checked}) {
    ASSERT_FALSE(r->result.hasErrors());
    EXPECT_EQ(r->out, expected);
  }
}

TEST(Executor, ThreadsAtDifferentBarriersAreReportedWithoutChecksToo) {
  KernelRun r = runKernel(R"(
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
  threadgroup float x[64];
  if (lid < 32) {
    x[lid] = 1;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[lid] = x[lid ^ 1];
  } else {
    threadgroup_barrier(mem_flags::mem_threadgroup);
    x[lid] = 2;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[lid] = x[lid ^ 1] + 1;
  }
})", 64, 64, 64, 60, Schedule(), CheckSet::none());
  EXPECT_TRUE(hasFinding(r.result, "barrier-divergence", Finding::Severity::Error));
}

TEST(Executor, TheBoundsCheckAloneStillSeesEveryOverrun) {
  // With only the bounds check listening, accesses inside the allocation their pointer comes
  // from skip the hook (an inline range test); an overrun must still reach the check, also one
  // that lands in the neighbouring threadgroup variable or in another buffer's memory.
  const char* kernel = R"(
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
  threadgroup float a[64];
  threadgroup float b[64];
  a[lid] = 1;
  b[lid] = 2;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[lid] = a[lid + 1];
  if (lid == 0) out[lid + 64] = 3;
})";
  KernelRun r = runKernel(kernel, 64, 64, 64);  // default checks: bounds and sync
  int overruns = 0;
  for (auto& f : r.result.findings)
    if (f.kind == "out-of-bounds") {
      ++overruns;
      EXPECT_TRUE(f.memorySpace == "threadgroup" || f.memorySpace == "device") << f.message;
    }
  EXPECT_EQ(overruns, 2);
  EXPECT_EQ(r.out[0], 1.0f);  // in-bounds accesses happen as usual
  EXPECT_EQ(r.out[63], 0.0f);  // the refused read yields zero
}

TEST(Executor, SimdGroupKernelsRunRegionByRegionWhenUncheckedAndNotAsVectorLanes) {
  // A kernel the vector lanes cannot take (a private array larger than they keep per lane) runs
  // its SIMD-group functions in the region loop, whose hooks record each lane's wait; the scheduler
  // resolves collectives between regions. The same kernel without the array runs as vector lanes
  // (and then has no region loop). Divergent lanes, a partial last SIMD-group and a barrier,
  // against values computed here from the lane numbers, on every path.
  const char* kernel = R"(
kernel void k(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]],
              uint lane [[thread_index_in_simdgroup]], uint g [[thread_position_in_grid]]) {
  threadgroup float firsts[8];
#if PRIVATE_WORDS
  float scratch[PRIVATE_WORDS];
  for (uint i = 0; i < PRIVATE_WORDS; ++i) scratch[i] = float(i == lane);
#endif
  float odd = 0;
  if (lane % 2 == 1) odd = simd_sum(float(lane));          // odd lanes only
  float all = simd_sum(1.0f);                               // the lanes that exist
  float next = simd_shuffle_down(float(lid), 1);
  if (lane == 0) firsts[lid / 32] = float(lid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[g] = odd * 1000 + all * 10 + (lane < 31 && lid + 1 < 80 ? next - float(lid) : 0) + firsts[0];
#if PRIVATE_WORDS
  out[g] += scratch[lane] - 1.0f;                           // 0: the array is each thread's own
#endif
})";
  auto expectedAt = [](uint32_t g) {
    uint32_t lid = g % 80, lane = lid % 32, base = lid / 32 * 32;
    uint32_t lanes = std::min(32u, 80 - base);  // the last SIMD-group has 16 lanes
    float odd = 0;
    if (lane % 2 == 1)
      for (uint32_t l = 1; l < lanes; l += 2) odd += float(l);
    float next = lane < 31 && lid + 1 < 80 ? 1.0f : 0.0f;
    return odd * 1000 + float(lanes) * 10 + next + 0.0f;
  };
  Schedule reverse{Schedule::Order::Reverse, 0};
  const std::string withArray = std::string("#define PRIVATE_WORDS 1100\n") + kernel;  // 4,400 bytes
  const std::string withoutArray = std::string("#define PRIVATE_WORDS 0\n") + kernel;
  KernelRun regions = runKernel(withArray, 160, 80, 160, 60, Schedule(), CheckSet::none());
  KernelRun lanes = runKernel(withoutArray, 160, 80, 160, 60, Schedule(), CheckSet::none());
  KernelRun oneByOne = runKernel(withArray, 160, 80, 160, 60, reverse, CheckSet::none());
  EXPECT_EQ(regions.result.path, "region loop");
  EXPECT_EQ(lanes.result.path, "vector lanes");
  EXPECT_NE(oneByOne.result.path, "region loop");
  for (auto* r : {&regions, &lanes, &oneByOne}) {
    ASSERT_FALSE(r->result.hasErrors());
    for (uint32_t g = 0; g < 160; ++g) EXPECT_EQ(r->out[g], expectedAt(g)) << r->result.path << ", thread " << g;
  }
}

// Metal's binding model: one allocation, bound at two indices and at a byte offset. The view at
// the offset may be read past its end while the allocation lasts; past the allocation is a finding.
TEST(Binding, OneAllocationAtSeveralIndicesAndOffsets) {
  std::string source = R"(#include <metal_stdlib>
using namespace metal;
kernel void k(device const float* a [[buffer(0)]], device const float* tail [[buffer(1)]],
              device float* out [[buffer(2)]], constant int& ahead [[buffer(3)]], uint i [[thread_position_in_grid]]) {
  out[i] = tail[i] + tail[i + ahead] + (tail == a + 4 ? 100.0f : 0.0f);
})";
  auto p = Program::compileSource("/virtual/binding.metal", source, {}, true);
  HostArray packed = HostArray::filled(DType::Float32, 12, 0);
  for (uint64_t i = 0; i < 12; ++i) packed.setValue(i, double(i));
  for (int ahead : {4, 6}) {
    HostArray out = HostArray::filled(DType::Float32, 4, -1);
    HostArray aheadArg = HostArray::filled(DType::Int32, 1, ahead);
    Launch launch(p->kernel("k"));
    launch.bindBuffer(0, packed, 0, false, "packed");
    launch.bindBuffer(1, packed, 16, false, "packed at byte 16");
    launch.bindBuffer(2, out, "out");
    launch.bindBuffer(3, aheadArg, "ahead");
    DispatchOptions options;
    options.checks = parseCheckList("all");
    DispatchResult r = launch.run(DispatchMode::Threads, {4, 1, 1}, {4, 1, 1}, options);
    if (ahead == 4) {
      // tail[i + 4] is packed[i + 8]: inside the allocation (the view holds packed[4..11]).
      EXPECT_FALSE(r.hasErrors());
      for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(out.valueAt(i), double((i + 4) + (i + 8) + 100));
    } else {
      // packed[i + 10] for i = 2, 3 is past the allocation: reported, and the loads yield zero.
      EXPECT_TRUE(hasFinding(r, "out-of-bounds", Finding::Severity::Error));
      EXPECT_EQ(out.valueAt(3), double(7 + 0 + 100));
    }
  }
  HostArray out = HostArray::filled(DType::Float32, 4, -1);
  Launch launch(p->kernel("k"));
  EXPECT_THROW(launch.bindBuffer(1, packed, 49, false, "packed"), Error);
}

// A SIMD-group function too large for the JIT'd loop over the SIMD-groups' regions (a long
// unrolled body, as in MLX's GEMMs) is resumed by the scheduler a call per SIMD-group; a small one
// runs in that loop. Both against the same C++ loop.
TEST(Executor, LargeSimdGroupFunctionsRunACallPerSimdGroup) {
  // ROUND repeated 4^levels times, each a few vector instructions.
  auto kernel = [](int levels) {
    std::string repeat = "ROUND";
    for (int l = 0; l < levels; ++l) repeat = "R4(" + repeat + ")";
    return R"(
#define ROUND acc = acc * 0.5f + (v + c) * (v - 1.0f); c += 1.0f;
#define R4(x) x x x x
kernel void k(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]],
              uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float part[2];
  const float v = float(gid % 17) * 0.25f;
  float acc = 0.0f, c = 0.0f;
  )" + repeat + R"(
  const float s = simd_sum(acc);
  if (lane == 0) part[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[gid] = part[0] + part[1] - acc;
})";
  };
  for (auto [levels, path] : {std::pair<int, const char*>{1, "vector lanes"}, {5, "vector lanes, a call per SIMD-group"}}) {
    SCOPED_TRACE(levels);
    KernelRun r = runKernel(kernel(levels), 256, 64, 256, 60, Schedule(), CheckSet::none());
    EXPECT_EQ(r.result.path, path);
    std::vector<double> acc(256);
    for (uint32_t g = 0; g < 256; ++g) {
      float v = float(g % 17) * 0.25f, a = 0.0f, c = 0.0f;
      for (int i = 0; i < (1 << (2 * levels)); ++i) {
        a = a * 0.5f + (v + c) * (v - 1.0f);
        c += 1.0f;
      }
      acc[g] = a;
    }
    for (uint32_t g = 0; g < 256; ++g) {
      double group = 0;
      for (uint32_t t = g / 64 * 64; t < g / 64 * 64 + 64; ++t) group += acc[t];
      EXPECT_NEAR(r.out[g], group - acc[g], 1e-5 * std::max(1.0, std::abs(group))) << "thread " << g;
    }
  }
}
