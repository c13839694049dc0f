// Where each threadgroup and thread of a dispatch lies, and the built-in values a kernel reads.
#include "Executor.h"

#include <cstring>

namespace mslsim {

// ---------------------------------------------------------------------------------------------
// Geometry

DispatchGeometry::DispatchGeometry(DispatchMode mode, Size3 grid, Size3 threadgroup)
    : mode_(mode), tg_(threadgroup) {
  for (int d = 0; d < 3; ++d) {
    if (mode == DispatchMode::Threads) {
      groups_[d] = tg_[d] ? uint32_t((uint64_t(grid[d]) + tg_[d] - 1) / tg_[d]) : 0;
      threadsPerGrid_[d] = grid[d];
    } else {
      groups_[d] = grid[d];
      threadsPerGrid_[d] = grid[d] * tg_[d];
    }
  }
}

Size3 DispatchGeometry::threadgroupSize(Size3 group) const {
  Size3 size = tg_;
  if (mode_ == DispatchMode::Threads)
    for (int d = 0; d < 3; ++d)
      size[d] = std::min(tg_[d], threadsPerGrid_[d] - group[d] * tg_[d]);
  return size;
}

Size3 DispatchGeometry::groupAt(uint64_t linear) const {
  Size3 g;
  g[0] = uint32_t(linear % groups_[0]);
  g[1] = uint32_t(linear / groups_[0] % groups_[1]);
  g[2] = uint32_t(linear / (uint64_t(groups_[0]) * groups_[1]));
  return g;
}

void DispatchGeometry::writeBuiltin(BuiltinValue builtin, Size3 group, Size3 groupSize, Size3 local,
                                    uint32_t linear, unsigned components, unsigned componentSize,
                                    void* out) const {
  auto ceilDiv = [](uint32_t a, uint32_t b) { return (a + b - 1) / b; };
  uint32_t groupThreads = groupSize[0] * groupSize[1] * groupSize[2];
  uint32_t requestedThreads = tg_[0] * tg_[1] * tg_[2];
  Size3 v{0, 0, 0};
  switch (builtin) {
    case BuiltinValue::ThreadPositionInGrid:
      for (int d = 0; d < 3; ++d) v[d] = group[d] * tg_[d] + local[d];
      break;
    case BuiltinValue::ThreadPositionInThreadgroup: v = local; break;
    case BuiltinValue::ThreadgroupPositionInGrid: v = group; break;
    case BuiltinValue::ThreadsPerThreadgroup: v = groupSize; break;
    case BuiltinValue::ThreadgroupsPerGrid: v = groups_; break;
    case BuiltinValue::ThreadsPerGrid:
    case BuiltinValue::GridSize: v = threadsPerGrid_; break;
    case BuiltinValue::GridOrigin: break;
    case BuiltinValue::ThreadIndexInThreadgroup: v[0] = linear; break;
    case BuiltinValue::ThreadIndexInSimdgroup: v[0] = linear % kSimdWidth; break;
    case BuiltinValue::SimdgroupIndexInThreadgroup: v[0] = linear / kSimdWidth; break;
    case BuiltinValue::ThreadsPerSimdgroup: v[0] = kSimdWidth; break;
    case BuiltinValue::SimdgroupsPerThreadgroup: v[0] = ceilDiv(groupThreads, kSimdWidth); break;
    case BuiltinValue::DispatchThreadsPerThreadgroup: v = tg_; break;
    case BuiltinValue::DispatchSimdgroupsPerThreadgroup:
      v[0] = ceilDiv(requestedThreads, kSimdWidth);
      break;
    case BuiltinValue::ThreadIndexInQuadgroup: v[0] = linear % 4; break;
    case BuiltinValue::QuadgroupIndexInThreadgroup: v[0] = linear / 4; break;
    case BuiltinValue::ThreadsPerQuadgroup: v[0] = 4; break;
    case BuiltinValue::QuadgroupsPerThreadgroup: v[0] = ceilDiv(groupThreads, 4); break;
  }
  auto* bytes = static_cast<uint8_t*>(out);
  for (unsigned c = 0; c < components; ++c) {
    if (componentSize == 2) {
      uint16_t x = uint16_t(v[c]);
      std::memcpy(bytes + 2 * c, &x, 2);
    } else {
      std::memcpy(bytes + 4 * c, &v[c], 4);
    }
  }
}

bool variesPerThread(BuiltinValue v) {
  switch (v) {
    case BuiltinValue::ThreadPositionInGrid:
    case BuiltinValue::ThreadPositionInThreadgroup:
    case BuiltinValue::ThreadIndexInThreadgroup:
    case BuiltinValue::ThreadIndexInSimdgroup:
    case BuiltinValue::SimdgroupIndexInThreadgroup:
    case BuiltinValue::ThreadIndexInQuadgroup:
    case BuiltinValue::QuadgroupIndexInThreadgroup: return true;
    default: return false;
  }
}

const char* threadSchedulingName(ThreadScheduling s) {
  switch (s) {
    case ThreadScheduling::Sequential: return "sequential";
    case ThreadScheduling::Coroutines: return "coroutines";
    case ThreadScheduling::Fibers: return "fibers";
  }
  return "?";
}

const char* codeTierName(CodeTier t) { return t == CodeTier::Quick ? "quick" : "optimised"; }

}  // namespace mslsim
