#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include <mslsim/host_array.h>

using namespace mslsim;

namespace {
std::string tempPath(const char* name) { return std::string(testing::TempDir()) + name; }
}  // namespace

TEST(HostArray, BufferSpecsProduceTheDescribedContents) {
  HostArray z = parseBufferSpec("zeros:int32:5");
  EXPECT_EQ(z.dtype, DType::Int32);
  EXPECT_EQ(z.count(), 5u);
  EXPECT_EQ(z.valueAt(4), 0);
  HostArray f = parseBufferSpec("fill:float16:3:1.5");
  EXPECT_EQ(f.bytes.size(), 6u);
  EXPECT_EQ(f.valueAt(2), 1.5);
  HostArray s = parseBufferSpec("scalar:uint32:7");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.valueAt(0), 7);
  HostArray i = parseBufferSpec("iota:uint8:4");
  EXPECT_EQ(i.valueAt(3), 3);
}

TEST(HostArray, BadSpecsNameTheProblem) {
  EXPECT_THROW(parseBufferSpec("zeros:float33:5"), Error);
  EXPECT_THROW(parseBufferSpec("fill:float32:5"), Error);
  EXPECT_THROW(parseBufferSpec("iota:int32:-1"), Error);
  EXPECT_THROW(parseBufferSpec("scalar:int32:abc"), Error);
  try {
    parseBufferSpec("zeros:float33:5");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown dtype 'float33'"), std::string::npos);
  }
}

TEST(HostArray, HalfAndBfloatRoundToNearestEven) {
  HostArray h = HostArray::filled(DType::Float16, 1, 0);
  h.setValue(0, 1.0 + 1.0 / 4096);  // halfway between two halves: ties to even (1.0)
  EXPECT_EQ(h.valueAt(0), 1.0);
  HostArray b = HostArray::filled(DType::BFloat16, 1, 0);
  b.setValue(0, 1.0 + 1.0 / 256);   // halfway between 1 and 1+2^-7: ties to even (1.0)
  EXPECT_EQ(b.valueAt(0), 1.0);
  b.setValue(0, 3.0);
  EXPECT_EQ(b.valueAt(0), 3.0);
}

TEST(HostArray, NpyRoundTripKeepsDtypeShapeAndData) {
  HostArray a = HostArray::filled(DType::Float32, 6, 0);
  a.shape = {2, 3};
  for (int i = 0; i < 6; ++i) a.setValue(i, i * 0.5);
  std::string path = tempPath("roundtrip.npy");
  writeNpy(path, a);
  HostArray b = readNpy(path);
  EXPECT_EQ(b.dtype, DType::Float32);
  EXPECT_EQ(b.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(b.bytes, a.bytes);
}

TEST(HostArray, NpyHeaderIsWhatNumpyWrites) {
  // The bytes numpy 1.24 writes for np.save(f, np.arange(3, dtype='<i4')).
  std::string path = tempPath("numpy.npy");
  {
    std::ofstream out(path, std::ios::binary);
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    out.write("\x93NUMPY\x01\x00", 8);
    char len[2] = {char(header.size()), 0};
    out.write(len, 2);
    out << header;
    int32_t data[3] = {0, 1, 2};
    out.write(reinterpret_cast<char*>(data), sizeof data);
  }
  HostArray a = readNpy(path);
  EXPECT_EQ(a.dtype, DType::Int32);
  EXPECT_EQ(a.shape, std::vector<uint64_t>{3});
  EXPECT_EQ(a.valueAt(2), 2);
}

TEST(HostArray, MalformedNpyIsAUsageError) {
  std::string path = tempPath("bad.npy");
  { std::ofstream(path) << "not numpy"; }
  EXPECT_THROW(readNpy(path), Error);
  EXPECT_THROW(readNpy(tempPath("missing.npy")), Error);
}

// Found by the fuzzers (tests/fuzz): values out of an integer dtype's range were undefined
// behaviour; they now wrap as an integer cast does (numpy's astype), NaN is 0.
TEST(HostArray, IntegerElementsWrapLikeACast) {
  HostArray counted = parseBufferSpec("iota:uint8:300", ".");
  EXPECT_EQ(counted.valueAt(255), 255);
  EXPECT_EQ(counted.valueAt(299), 43);
  EXPECT_EQ(parseBufferSpec("fill:int8:2:-129", ".").valueAt(1), 127);
  EXPECT_EQ(parseBufferSpec("scalar:int32:1e10", ".").valueAt(0), 1410065408);
  HostArray a = HostArray::filled(DType::Int32, 1, 0);
  a.setValue(0, std::nan(""));
  EXPECT_EQ(a.valueAt(0), 0);
}

// A header over 64 KiB (an array of 20000 dimensions) needs .npy format 2.0 (a 32-bit length).
TEST(HostArray, NpyWithALongHeaderRoundTrips) {
  HostArray a = HostArray::filled(DType::Float32, 1, 2.5f);
  a.shape.assign(20000, 1);
  std::string path = tempPath("long_header.npy");
  writeNpy(path, a);
  HostArray b = readNpy(path);
  EXPECT_EQ(b.shape.size(), 20000u);
  EXPECT_EQ(b.valueAt(0), 2.5);
}

TEST(HostArray, NpyFromMemoryRefusesDataShorterThanItsShape) {
  std::string path = tempPath("short.npy");
  writeNpy(path, HostArray::filled(DType::Float32, 8, 1.0));
  std::ifstream in(path, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(parseNpy(image, "whole").count(), 8u);
  EXPECT_THROW(parseNpy(image.substr(0, image.size() - 4), "cut"), Error);
}
