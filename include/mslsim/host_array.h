// Host-side data: typed arrays in MSL's element types, NumPy .npy files, and the CLI's buffer specs.
#pragma once

#include <mslsim/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace mslsim {



// Host types for MSL's `half` and `bfloat` elements.
using half = _Float16;  // IEEE binary16 (GCC 12+ and Clang on x86-64)
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float value);  // round to nearest, ties to even
  explicit operator float() const;
  static bfloat16 fromBits(uint16_t b) {
    bfloat16 x;
    x.bits = b;
    return x;
  }
};

// The dtype of a host element type: DTypeOf<float>::value == DType::Float32, ...
template <class T> struct DTypeOf;
#define MSLSIM_DTYPE_OF(T, D) \
  template <> struct DTypeOf<T> { static constexpr DType value = DType::D; };
MSLSIM_DTYPE_OF(float, Float32)
MSLSIM_DTYPE_OF(double, Float64)
MSLSIM_DTYPE_OF(half, Float16)
MSLSIM_DTYPE_OF(bfloat16, BFloat16)
MSLSIM_DTYPE_OF(int8_t, Int8)
MSLSIM_DTYPE_OF(int16_t, Int16)
MSLSIM_DTYPE_OF(int32_t, Int32)
MSLSIM_DTYPE_OF(int64_t, Int64)
MSLSIM_DTYPE_OF(uint8_t, UInt8)
MSLSIM_DTYPE_OF(uint16_t, UInt16)
MSLSIM_DTYPE_OF(uint32_t, UInt32)
MSLSIM_DTYPE_OF(uint64_t, UInt64)
MSLSIM_DTYPE_OF(bool, Bool)
#undef MSLSIM_DTYPE_OF

// Memory for the data kernels touch, in a mapping of its own between two wide bands of
// inaccessible pages (see sim/GuardedMemory.h): a kernel's stray access near it faults, and the
// fault becomes a finding, instead of landing in the host's heap. Never null, even for 0 bytes.
void* allocateGuarded(std::size_t bytes);
// The largest buffer mslsim allocates: Metal's maxBufferLength of the simulated GPU (64 GiB), or
// this machine's memory if that is less. Larger requests are refused with the numbers.
uint64_t maxBufferBytes();
void releaseGuarded(void* pointer, std::size_t bytes) noexcept;

template <class T> struct GuardedAllocator {
  using value_type = T;
  GuardedAllocator() = default;
  template <class U> GuardedAllocator(const GuardedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocateGuarded(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { releaseGuarded(p, n * sizeof(T)); }
  template <class U> bool operator==(const GuardedAllocator<U>&) const noexcept { return true; }
  template <class U> bool operator!=(const GuardedAllocator<U>&) const noexcept { return false; }
};
using DeviceBytes = std::vector<uint8_t, GuardedAllocator<uint8_t>>;

// Typed host data with a shape: what kernel buffers are bound to (the kernel reads and writes
// `bytes` in place).
struct HostArray {
  DType dtype = DType::Float32;
  std::vector<uint64_t> shape;  // empty for a 0-d array
  DeviceBytes bytes;

  uint64_t count() const { return bytes.size() / dtypeSize(dtype); }
  double valueAt(uint64_t i) const;                 // element i converted to double (complex: real part)
  // Rounded to the dtype (half/bfloat: nearest even); to integers: truncated toward zero and
  // wrapped modulo 2^bits like an integer cast (300 in uint8 is 44), NaN 0.
  void setValue(uint64_t i, double value);
  static HostArray filled(DType dtype, uint64_t count, double value);

  // From host values: HostArray::of(std::vector<float>{...}), with an optional shape (default 1-D).
  template <class T>
  static HostArray of(const std::vector<T>& values, std::vector<uint64_t> shape = {}) {
    return of(values.data(), values.size(), std::move(shape));
  }
  template <class T>
  static HostArray of(const T* values, uint64_t count, std::vector<uint64_t> shape = {}) {
    HostArray a;
    a.dtype = DTypeOf<T>::value;
    a.shape = shape.empty() ? std::vector<uint64_t>{count} : std::move(shape);
    a.bytes.resize(count * sizeof(T));
    for (uint64_t i = 0; i < count; ++i) std::memcpy(a.bytes.data() + i * sizeof(T), &values[i], sizeof(T));
    return a;
  }
  // A 0-d array holding one value (for `constant T&` arguments).
  template <class T> static HostArray scalar(T value) {
    HostArray a = of(&value, 1);
    a.shape.clear();
    return a;
  }
  // The elements as host values; throws Error if T is not this array's element type.
  template <class T> std::vector<T> values() const {
    if (DTypeOf<T>::value != dtype)
      throw Error(std::string("HostArray::values: the array holds ") + dtypeName(dtype) + ", not " +
                  dtypeName(DTypeOf<T>::value));
    std::vector<T> out(count());
    for (uint64_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], bytes.data() + i * sizeof(T), sizeof(T));
    return out;
  }
};

// NumPy format 1.0-3.0, little-endian, C order. bfloat16 has no NumPy dtype: it is stored as <u2
// bit patterns, so `readNpy` returns UInt16 for it and the caller reinterprets where a bfloat
// argument asks for it.
HostArray readNpy(const std::string& path);
// The same parser over a .npy image in memory; `name` begins the messages of the Errors it throws
// (as the path does for readNpy).
HostArray parseNpy(const std::string& bytes, const std::string& name);
void writeNpy(const std::string& path, const HostArray& array);

// `path.npy` (relative to `baseDir` unless absolute) | `zeros:DTYPE:COUNT` |
// `fill:DTYPE:COUNT:VALUE` | `scalar:DTYPE:VALUE` | `iota:DTYPE:COUNT`.
HostArray parseBufferSpec(const std::string& spec, const std::string& baseDir = "");

}  // namespace mslsim
