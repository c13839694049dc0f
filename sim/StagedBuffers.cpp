#include "StagedBuffers.h"

#include <algorithm>
#include <cstring>

namespace mslsim {

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
    GuardedMemory staged(uint64_t(end - begin), GuardedMemory::Extent::GpuPages);
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
