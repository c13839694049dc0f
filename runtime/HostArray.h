// Host-side data: typed arrays in MSL's element types, NumPy .npy files, and the CLI's buffer specs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mslsim {

// A user mistake (bad file, bad argument, unknown kernel): reported as one line, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class DType {
  Float32, Float16, BFloat16, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool,
  Float64,    // MLX has it; Metal does not (kernels using it do not compile on a GPU)
  Complex64,  // two float32, real first (MLX's complex64_t)
};

const char* dtypeName(DType t);                  // "float32", ...
bool parseDType(const std::string& name, DType& out);
unsigned dtypeSize(DType t);
bool isFloating(DType t);
std::string allDTypeNames();                     // for error messages

struct HostArray {
  DType dtype = DType::Float32;
  std::vector<uint64_t> shape;  // empty for a 0-d array
  std::vector<uint8_t> bytes;

  uint64_t count() const { return bytes.size() / dtypeSize(dtype); }
  double valueAt(uint64_t i) const;                 // element i converted to double (complex: real part)
  void setValue(uint64_t i, double value);          // rounded to the dtype (half/bfloat: nearest even)
  static HostArray filled(DType dtype, uint64_t count, double value);
};

// NumPy format 1.0-3.0, little-endian, C order. bfloat16 has no NumPy dtype: it is stored as <u2
// bit patterns, so `readNpy` returns UInt16 for it and the caller reinterprets where a bfloat
// argument asks for it.
HostArray readNpy(const std::string& path);
void writeNpy(const std::string& path, const HostArray& array);

// `path.npy` (relative to `baseDir` unless absolute) | `zeros:DTYPE:COUNT` |
// `fill:DTYPE:COUNT:VALUE` | `scalar:DTYPE:VALUE` | `iota:DTYPE:COUNT`.
HostArray parseBufferSpec(const std::string& spec, const std::string& baseDir = "");

}  // namespace mslsim
