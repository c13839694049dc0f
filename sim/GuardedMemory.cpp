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

void* allocateGuarded(std::size_t bytes) {
  GuardedMemory memory(bytes);
  void* data = memory.data();
  memory.release();  // owned by the caller from here, freed by releaseGuarded
  return data;
}

void releaseGuarded(void* pointer, std::size_t bytes) noexcept {
  GuardedMemory::adopt(static_cast<uint8_t*>(pointer), bytes);  // and dropped
}

GuardedMemory::GuardedMemory(uint64_t bytes) {
  uint64_t page = pageSize();
  uint64_t usable = (bytes + page - 1) / page * page;
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
  data_ = middle + (usable - bytes) / 64 * 64;  // as close to the trailing band as alignment allows
  GuardedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.ranges[reinterpret_cast<uintptr_t>(data_)] = reinterpret_cast<uintptr_t>(data_) + size_;
}

void GuardedMemory::release() {
  mapping_ = nullptr;
  data_ = nullptr;
  size_ = mappingBytes_ = 0;
}

void GuardedMemory::adopt(uint8_t* data, uint64_t bytes) {
  // The layout the constructor made for `bytes`.
  uint64_t page = pageSize();
  uint64_t usable = (bytes + page - 1) / page * page;
  GuardedMemory memory;
  memory.data_ = data;
  memory.size_ = bytes;
  memory.mapping_ = data - (usable - bytes) / 64 * 64 - kGuardBytes;
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

std::vector<std::pair<uint8_t*, uint8_t*>> boundAllocations(const DispatchRequest& request) {
  std::vector<std::pair<uint8_t*, uint8_t*>> spans, merged;
  for (const ArgumentInfo& a : request.kernel->info.arguments) {
    if (a.role != ArgumentRole::Buffer) continue;
    const BoundArgument& b = request.arguments[a.position];
    auto* begin = static_cast<uint8_t*>(const_cast<void*>(b.regionBegin ? b.regionBegin : b.buffer));
    if (begin) spans.emplace_back(begin, begin + b.regionBytes);
  }
  std::sort(spans.begin(), spans.end());
  for (auto& s : spans)
    if (!merged.empty() && s.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, s.second);
    else
      merged.push_back(s);
  return merged;
}

StagedBuffers::StagedBuffers(DispatchRequest& request) {
  std::vector<std::pair<uint8_t*, uint8_t*>> ranges = boundAllocations(request);
  for (auto& [begin, end] : ranges) {
    if (isGuarded(begin, end)) {  // stays where it is
      allocations_.push_back({begin, GuardedMemory()});
      continue;
    }
    GuardedMemory staged(uint64_t(end - begin));
    if (end > begin) std::memcpy(staged.data(), begin, size_t(end - begin));
    allocations_.push_back({begin, std::move(staged)});
  }
  // Each binding moves with its allocation (the range that holds it, its end included: the ranges
  // neither overlap nor touch).
  auto move = [&](const void* pointer) -> void* {
    auto* p = static_cast<uint8_t*>(const_cast<void*>(pointer));
    for (size_t i = 0; i < ranges.size(); ++i)
      if (p >= ranges[i].first && p <= ranges[i].second)
        return allocations_[i].staged.data() ? allocations_[i].staged.data() + (p - ranges[i].first) : p;
    return p;
  };
  for (const ArgumentInfo& a : request.kernel->info.arguments) {
    if (a.role != ArgumentRole::Buffer) continue;
    BoundArgument& b = request.arguments[a.position];
    if (!b.buffer) continue;
    const void* region = b.regionBegin ? b.regionBegin : b.buffer;
    auto* stagedRegion = static_cast<uint8_t*>(move(region));
    b.buffer = stagedRegion + (static_cast<const uint8_t*>(b.buffer) - static_cast<const uint8_t*>(region));
    b.regionBegin = stagedRegion;
  }
}

void StagedBuffers::copyBack() {
  for (Allocation& a : allocations_)
    if (a.staged.size()) std::memcpy(a.host, a.staged.data(), a.staged.size());
}

}  // namespace mslsim
