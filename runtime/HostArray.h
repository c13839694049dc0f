// Host-side data: typed arrays in MSL's element types, NumPy .npy files, and the CLI's buffer specs.
#pragma once

#include <mslsim/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mslsim {



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
