#include "GuardedMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <utility>

namespace mslsim {

namespace {
uint64_t pageSize() {
  static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
  return size;
}

// The live guarded allocations, by start: what StagedBuffers need not copy.
struct GuardedRegistry {
  std::mutex mutex;
  std::map<uintptr_t, uintptr_t> ranges;  // data -> data + size
};
GuardedRegistry& registry() {
  static GuardedRegistry* r = new GuardedRegistry;  // outlives every static HostArray
  return *r;
}
}  // namespace

bool isGuarded(const uint8_t* begin, const uint8_t* end) {
  GuardedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.ranges.upper_bound(reinterpret_cast<uintptr_t>(begin));
  if (it == r.ranges.begin()) return false;
  --it;
  return reinterpret_cast<uintptr_t>(begin) >= it->first && reinterpret_cast<uintptr_t>(end) <= it->second;
}

// Device buffers, as Metal maps them (GuardedMemory.h).
void* allocateGuarded(std::size_t bytes) {
  GuardedMemory memory(bytes, GuardedMemory::Extent::GpuPages);
  void* data = memory.data();
  memory.release();  // owned by the caller from here, freed by releaseGuarded
  return data;
}

void releaseGuarded(void* pointer, std::size_t bytes) noexcept {
  GuardedMemory::adopt(static_cast<uint8_t*>(pointer), bytes, GuardedMemory::Extent::GpuPages);  // and dropped
}

namespace {
// The accessible bytes around `bytes`, and where in them the data starts.
uint64_t accessibleBytes(uint64_t bytes, GuardedMemory::Extent extent) {
  uint64_t page = extent == GuardedMemory::Extent::GpuPages ? std::max(pageSize(), GuardedMemory::kGpuPageBytes) : pageSize();
  return (bytes + page - 1) / page * page;
}
uint64_t dataOffset(uint64_t bytes, uint64_t usable, GuardedMemory::Extent extent) {
  return extent == GuardedMemory::Extent::GpuPages ? 0 : (usable - bytes) / 64 * 64;
}
}  // namespace

GuardedMemory::GuardedMemory(uint64_t bytes, Extent extent) {
  uint64_t usable = accessibleBytes(bytes, extent);
  mappingBytes_ = usable + 2 * kGuardBytes;
  // Reserved inaccessible, then the middle opened: the bands cost address space only.
  mapping_ = mmap(nullptr, mappingBytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::bad_alloc();
  }
  auto* middle = static_cast<uint8_t*>(mapping_) + kGuardBytes;
  if (usable && mprotect(middle, usable, PROT_READ | PROT_WRITE) != 0) {
    munmap(mapping_, mappingBytes_);
    mapping_ = nullptr;
    throw std::bad_alloc();
  }
  size_ = bytes;
  data_ = middle + dataOffset(bytes, usable, extent);
  GuardedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.ranges[reinterpret_cast<uintptr_t>(data_)] = reinterpret_cast<uintptr_t>(data_) + size_;
}

void GuardedMemory::release() {
  mapping_ = nullptr;
  data_ = nullptr;
  size_ = mappingBytes_ = 0;
}

void GuardedMemory::adopt(uint8_t* data, uint64_t bytes, Extent extent) {
  // The layout the constructor made for `bytes`.
  uint64_t usable = accessibleBytes(bytes, extent);
  GuardedMemory memory;
  memory.data_ = data;
  memory.size_ = bytes;
  memory.mapping_ = data - dataOffset(bytes, usable, extent) - kGuardBytes;
  memory.mappingBytes_ = usable + 2 * kGuardBytes;
}

GuardedMemory& GuardedMemory::operator=(GuardedMemory&& other) noexcept {
  if (this != &other) {
    this->~GuardedMemory();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mappingBytes_ = std::exchange(other.mappingBytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

GuardedMemory::~GuardedMemory() {
  if (!mapping_) return;
  {
    GuardedRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.ranges.erase(reinterpret_cast<uintptr_t>(data_));
  }
  munmap(mapping_, mappingBytes_);
  mapping_ = nullptr;
}

}  // namespace mslsim
