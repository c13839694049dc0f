// Memory the kernel's native code touches, fenced off from the host's.
//
// Without the bounds check (`--check none`, or a build without instrumentation) a kernel's stray
// store goes wherever its address points: past the end of a buffer that lives in the host's heap,
// it corrupts mslsim's own allocations. So device buffers are staged, for such dispatches, into
// mappings of their own with a wide band of inaccessible pages on each side, and threadgroup
// memory always lives in one: an overrun, an underrun or a pointer forged from a buffer's address
// (within the band) faults, and the fault becomes a finding that names the allocation.
// HostArray's storage is guarded memory too (allocateGuarded), so this file knows nothing of
// dispatches: StagedBuffers.h stages a dispatch's other buffers.
//
// How far a stray access may go before it faults is the hardware's: Metal maps a buffer in pages
// of the GPU (16 KiB on Apple GPUs), so an unchecked read just past a buffer's end reads the rest
// of its page and the program goes on (MLX's quantized matrix-vector kernels read a scale past
// their buffer, and run on a Mac). Device buffers (allocateGuarded, staged buffers) are therefore
// accessible to the end of their last 16 KiB page, which reads as zeros, and fault beyond it;
// threadgroup memory faults at its first byte past the end. With the bounds check, an access past
// the length is a finding either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mslsim/host_array.h>

namespace mslsim {

class GuardedMemory {
 public:
  // The inaccessible band on each side.
  static constexpr uint64_t kGuardBytes = uint64_t(1) << 20;
  // The page in which Apple GPUs map buffers.
  static constexpr uint64_t kGpuPageBytes = uint64_t(16) << 10;
  enum class Extent {
    Exact,     // `bytes` end (to a 64-byte alignment) where the trailing band begins
    GpuPages,  // `bytes` start at a page; the band begins at the end of their last GPU page
  };

  GuardedMemory() = default;
  // `bytes` of zeroed memory.
  GuardedMemory(uint64_t bytes, Extent extent);
  GuardedMemory(GuardedMemory&& other) noexcept { *this = std::move(other); }
  GuardedMemory& operator=(GuardedMemory&& other) noexcept;
  GuardedMemory(const GuardedMemory&) = delete;
  GuardedMemory& operator=(const GuardedMemory&) = delete;
  ~GuardedMemory();

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  // Gives up the mapping without unmapping it (allocateGuarded hands it out)...
  void release();
  // ...and unmaps the one made for `bytes` at `data` with `extent`.
  static void adopt(uint8_t* data, uint64_t bytes, Extent extent);

 private:
  void* mapping_ = nullptr;
  uint64_t mappingBytes_ = 0;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// Whether [begin, end) lies inside one live guarded allocation (GuardedMemory or allocateGuarded).
bool isGuarded(const uint8_t* begin, const uint8_t* end);

}  // namespace mslsim
