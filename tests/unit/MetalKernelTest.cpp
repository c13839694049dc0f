// MLX's metal_kernel: the generated text must be byte for byte what MLX generates. Expected texts
// are the worked examples of shared/reference/mlx-metal-kernel-contract.md §4, derived from MLX's
// source independently of this implementation.
#include <gtest/gtest.h>

#include <cmath>

#include <mslsim/mlx.h>

using namespace mslsim;
using namespace mslsim::mlx;

namespace {

// A view of `count` elements with a given shape (contiguous), over storage kept by the test.
ArrayView view(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t>& storage) {
  ArrayView v;
  v.dtype = dtype;
  v.shape = shape;
  v.strides.assign(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) v.strides[i - 1] = v.strides[i] * shape[i];
  storage.assign(std::max<uint64_t>(1, v.size()) * dtypeSize(dtype), 0);
  v.data = v.allocationBegin = storage.data();
  v.allocationBytes = storage.size();
  return v;
}

const char* kExpBody = "\n    uint elem = thread_position_in_grid.x;\n    T tmp = inp[elem];\n    out[elem] = metal::exp(tmp);\n";

}  // namespace

TEST(MetalKernelGeneration, DocsMyexpMatchesMlxByteForByte) {
  MetalKernel k({"myexp", {"inp"}, {"out"}, kExpBody, "", true, false, MathMode::Safe});
  std::vector<uint8_t> a;
  Call call;
  call.inputs = {view(DType::Float16, {4, 16}, a)};
  call.outputShapes = {{4, 16}};
  call.outputDtypes = {DType::Float16};
  call.templateArgs = {{"T", DType::Float32}};
  GeneratedKernel g = k.generate(call);
  EXPECT_EQ(g.name, "custom_kernel_myexp__float_float16_t_float16_t");
  EXPECT_EQ(g.source,
            "template <typename T>\n"
            "[[kernel]] void custom_kernel_myexp__float_float16_t_float16_t(\n"
            "  const device float16_t* inp [[buffer(0)]],\n"
            "  device float16_t* out [[buffer(1)]],\n"
            "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n"
            "\n"
            "    uint elem = thread_position_in_grid.x;\n"
            "    T tmp = inp[elem];\n"
            "    out[elem] = metal::exp(tmp);\n"
            "\n"
            "}\n"
            "\n"
            "template [[host_name(\"custom_kernel_myexp__float_float16_t_float16_t\")]] [[kernel]] "
            "decltype(custom_kernel_myexp__float_float16_t_float16_t<float>) "
            "custom_kernel_myexp__float_float16_t_float16_t<float>;\n");
}

TEST(MetalKernelGeneration, StridedExpDeclaresShapeStridesAndNdim) {
  std::string body =
      "\n    uint elem = thread_position_in_grid.x;\n    uint loc = elem_to_loc(elem, inp_shape, "
      "inp_strides, inp_ndim);\n    T tmp = inp[loc];\n    out[elem] = metal::exp(tmp);\n";
  MetalKernel k({"myexp_strided", {"inp"}, {"out"}, body, "", false, false, MathMode::Safe});
  std::vector<uint8_t> a;
  Call call;
  call.inputs = {view(DType::Float16, {2, 16}, a)};
  call.outputShapes = {{2, 16}};
  call.outputDtypes = {DType::Float16};
  call.templateArgs = {{"T", DType::Float32}};
  GeneratedKernel g = k.generate(call);
  EXPECT_EQ(g.source.substr(0, g.source.find(") {\n") + 4),
            "template <typename T>\n"
            "[[kernel]] void custom_kernel_myexp_strided__float_float16_t_float16_t(\n"
            "  const device float16_t* inp [[buffer(0)]],\n"
            "  const constant int* inp_shape [[buffer(1)]],\n"
            "  const constant int64_t* inp_strides [[buffer(2)]],\n"
            "  const constant int& inp_ndim [[buffer(3)]],\n"
            "  device float16_t* out [[buffer(4)]],\n"
            "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n");
}

TEST(MetalKernelGeneration, ScalarsSmallArraysAndAllThreeTemplateKinds) {
  MetalKernel k({"arg_test", {"a", "b", "c", "d"}, {"out1", "out2"},
                 "\n  uint i = thread_position_in_grid.x;\n", "", true, false, MathMode::Safe});
  std::vector<uint8_t> sa, sb, sc, sd;
  Call call;
  call.inputs = {view(DType::Float32, {3, 6}, sa), view(DType::Int32, {3}, sb),
                 view(DType::BFloat16, {2, 2}, sc), view(DType::Float32, {}, sd)};
  call.outputShapes = {{3, 2}, {3, 2}};
  call.outputDtypes = {DType::Float32, DType::Int32};
  call.templateArgs = {{"e", true}, {"f", 3}, {"T", DType::Float16}};
  GeneratedKernel g = k.generate(call);
  const std::string name = "custom_kernel_arg_test__1_3_float16_t_float_int32_tc_bfloat16_tc_floats_float_int32_t";
  EXPECT_EQ(g.name, name);
  EXPECT_EQ(g.source,
            "template <bool e, int f, typename T>\n"
            "[[kernel]] void " + name + "(\n"
            "  const device float* a [[buffer(0)]],\n"
            "  const constant int32_t* b [[buffer(1)]],\n"
            "  const constant bfloat16_t* c [[buffer(2)]],\n"
            "  const constant float& d [[buffer(3)]],\n"
            "  device float* out1 [[buffer(4)]],\n"
            "  device int32_t* out2 [[buffer(5)]],\n"
            "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n"
            "\n  uint i = thread_position_in_grid.x;\n"
            "\n}\n"
            "\ntemplate [[host_name(\"" + name + "\")]] [[kernel]] decltype(" + name +
                "<1, 3, float16_t>) " + name + "<1, 3, float16_t>;\n");
}

TEST(MetalKernelGeneration, AtomicOutputsAndAttributesInTableOrder) {
  std::string body =
      "\n    uint elem = thread_position_in_grid.x;\n    T v = inp[elem];\n    if "
      "(thread_index_in_simdgroup == 0) {\n        atomic_fetch_add_explicit(&total[0], v, "
      "memory_order_relaxed);\n    }\n";
  MetalKernel k({"atomic_sum", {"inp"}, {"total"}, body, "", true, true, MathMode::Safe});
  std::vector<uint8_t> a;
  Call call;
  call.inputs = {view(DType::Float32, {1024}, a)};
  call.outputShapes = {{1}};
  call.outputDtypes = {DType::Float32};
  call.templateArgs = {{"T", DType::Float32}};
  GeneratedKernel g = k.generate(call);
  EXPECT_EQ(g.source.substr(0, g.source.find(") {\n") + 4),
            "template <typename T>\n"
            "[[kernel]] void custom_kernel_atomic_sum__float_float_float(\n"
            "  const device float* inp [[buffer(0)]],\n"
            "  device atomic<float>* total [[buffer(1)]],\n"
            "  uint thread_index_in_simdgroup [[thread_index_in_simdgroup]],\n"
            "  uint3 thread_position_in_grid [[thread_position_in_grid]]) {\n");
}

TEST(MetalKernelGeneration, TheTwoOutputsQuirkIsReproducedWithANote) {
  MetalKernel k({"quirk", {"a"}, {"out1", "out2"}, "\n  out1[0] = a_shape[0] + a_ndim;\n", "", true,
                 false, MathMode::Safe});
  std::vector<uint8_t> a;
  Call call;
  call.inputs = {view(DType::Float32, {16}, a)};
  call.outputShapes = {{1}, {1}};
  call.outputDtypes = {DType::Int32, DType::Int32};
  GeneratedKernel g = k.generate(call);
  EXPECT_NE(g.source.find("  device int32_t* out1 [[buffer(3)]]) {\n  device int32_t* out2 [[buffer(4)]]) {\n"),
            std::string::npos);
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_THROW(k(call), RuntimeError);
}

TEST(MetalKernelErrors, MessagesAreMlxs) {
  EXPECT_THROW(MetalKernel({"x", {"a"}, {}, "", "", true, false, MathMode::Safe}), ValueError);
  MetalKernel k({"x", {"a"}, {"o"}, "o[0] = a[0];", "", true, false, MathMode::Safe});
  Call call;
  try {
    k.generate(call);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "[metal_kernel] Expected `inputs` to have size 1 but got size 0.\n");
  }
  std::vector<uint8_t> a;
  call.inputs = {view(DType::Float32, {8}, a)};
  call.outputShapes = {{8}};
  call.outputDtypes = {DType::Float32};
  call.grid = {8, 1, 1};
  call.threadgroup = {2048, 1, 1};
  try {
    k(call);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(),
                 "Thread group size (2048) is greater than  the maximum allowed threads per threadgroup (1024).");
  }
}

TEST(MetalKernelRun, ExpOverAStridedViewMatchesAReferenceLoop) {
  std::string body =
      "\n    uint elem = thread_position_in_grid.x;\n    uint loc = elem_to_loc(elem, inp_shape, "
      "inp_strides, inp_ndim);\n    T tmp = inp[loc];\n    out[elem] = metal::exp(tmp);\n";
  // A (4,16) float32 array; the view a[::2] is (2,16) with strides (32, 1).
  std::vector<float> base(64);
  for (int i = 0; i < 64; ++i) base[i] = 0.05f * float(i) - 1.0f;
  for (bool contiguous : {false, true}) {
    MetalKernel k({"myexp_strided", {"inp"}, {"out"}, body, "", contiguous, false, MathMode::Safe});
    ArrayView v;
    v.dtype = DType::Float32;
    v.shape = {2, 16};
    v.strides = {32, 1};
    v.data = v.allocationBegin = base.data();
    v.allocationBytes = base.size() * 4;
    Call call;
    call.inputs = {v};
    call.outputShapes = {{2, 16}};
    call.outputDtypes = {DType::Float32};
    call.templateArgs = {{"T", DType::Float32}};
    call.grid = {32, 1, 1};
    call.threadgroup = {256, 1, 1};
    std::vector<HostArray> out = k(call);
    ASSERT_EQ(out.size(), 1u);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 16; ++c)
        EXPECT_NEAR(out[0].valueAt(r * 16 + c), std::exp(base[r * 32 + c]), 1e-6) << r << "," << c;
  }
}

TEST(MetalKernelErrors, CompileErrorsPointIntoTheUsersSourceAndHeader) {
  std::vector<uint8_t> a;
  Call call;
  call.inputs = {view(DType::Float32, {8}, a)};
  call.outputShapes = {{8}};
  call.outputDtypes = {DType::Float32};
  call.grid = {8, 1, 1};
  call.threadgroup = {8, 1, 1};
  MetalKernel body({"bad_body", {"a"}, {"o"}, "\n  uint i = thread_position_in_grid.x;\n  o[i] = nope;\n",
                    "", true, false, MathMode::Safe});
  try {
    body(call);
    FAIL();
  } catch (const RuntimeError& e) {
    std::string text = e.what();
    EXPECT_EQ(text.rfind("[metal::Device] Unable to build metal library from source\n", 0), 0u) << text;
    EXPECT_NE(text.find("source:3:10: error: use of undeclared identifier 'nope'"), std::string::npos) << text;
  }
  MetalKernel header({"bad_header", {"a"}, {"o"}, "\n  o[thread_position_in_grid.x] = helper();\n",
                      "inline float helper() {\n  return missing;\n}\n", true, false, MathMode::Safe});
  try {
    header(call);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("header:2:10: error: use of undeclared identifier 'missing'"),
              std::string::npos)
        << e.what();
  }
}

TEST(MetalKernelRun, OutputsArePoisonedUnlessInitValueIsGiven) {
  MetalKernel k({"partial", {"a"}, {"o"}, "\n  if (thread_position_in_grid.x == 0) o[0] = a[0];\n", "",
                 true, false, MathMode::Safe});
  std::vector<float> data(4, 2.5f);
  ArrayView v;
  v.dtype = DType::Float32;
  v.shape = {4};
  v.strides = {1};
  v.data = v.allocationBegin = data.data();
  v.allocationBytes = 16;
  Call call;
  call.inputs = {v};
  call.outputShapes = {{4}};
  call.outputDtypes = {DType::Float32};
  call.grid = {4, 1, 1};
  call.threadgroup = {4, 1, 1};
  std::vector<HostArray> poisoned = k(call);
  EXPECT_EQ(poisoned[0].valueAt(0), 2.5);
  EXPECT_TRUE(std::isnan(poisoned[0].valueAt(1)));
  call.initValue = 7;
  std::vector<HostArray> initialised = k(call);
  EXPECT_EQ(initialised[0].valueAt(3), 7.0);
}

// An output MLX allocates without init_value holds whatever the allocator left: under the uninit
// check, a kernel that reads it before writing it is reported (an accumulation into `out` that
// forgot init_value=0), naming the output; with init_value the same kernel runs clean, and the
// result is the reference loop's. Under every check and under the uninit check alone, where no
// other check asks to see the reads (reads nobody needs skip the hook).
TEST(MetalKernelRun, ReadingAnOutputWithoutInitValueIsAnUninitialisedRead) {
  MetalKernel k({"accumulate", {"inp"}, {"out"}, "\n  uint i = thread_position_in_grid.x;\n  out[i] = out[i] + 2.0f * inp[i];\n",
                 "", true, false, MathMode::Safe});
  std::vector<uint8_t> storage;
  ArrayView v = view(DType::Float32, {64}, storage);
  float* data = reinterpret_cast<float*>(storage.data());
  for (int i = 0; i < 64; ++i) data[i] = 0.25f * float(i);
  CheckSet uninitOnly = CheckSet::none();
  uninitOnly.uninit = true;
  for (CheckSet checks : {CheckSet::all(), uninitOnly}) {
    Call call;
    call.inputs = {v};
    call.outputShapes = {{64}};
    call.outputDtypes = {DType::Float32};
    call.grid = {64, 1, 1};
    call.threadgroup = {32, 1, 1};
    call.checks = checks;
    try {
      k(call);
      ADD_FAILURE() << "the read of the uninitialised output was not reported (races " << checks.races << ")";
    } catch (const KernelError& e) {
      EXPECT_NE(std::string(e.json()).find("\"uninitialized-read\""), std::string::npos) << e.json();
      EXPECT_NE(std::string(e.what()).find("argument 'out'"), std::string::npos) << e.what();
    }
    call.initValue = 1;
    std::vector<HostArray> out = k(call);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[0].valueAt(i), 1.0f + 2.0f * data[i]) << i;
  }
}
