#include "InactiveLaneCheck.h"

#include "StagedBuffers.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace mslsim {
namespace {

constexpr const char* kInactiveLaneRead = "simd-inactive-lane";

// The device memory a dispatch can write (boundAllocations), saved and restored.
class DeviceMemory {
 public:
  using Image = std::vector<std::vector<uint8_t>>;  // one byte copy per range

  explicit DeviceMemory(const DispatchRequest& request) : request_(request), ranges_(boundAllocations(request)) {}

  Image save() const {
    Image image;
    for (auto& [begin, end] : ranges_) image.emplace_back(begin, end);
    return image;
  }
  void restore(const Image& image) const {
    for (size_t i = 0; i < ranges_.size(); ++i)
      std::memcpy(ranges_[i].first, image[i].data(), image[i].size());
  }
  // The address of the first byte that differs between two images, or null.
  const uint8_t* firstDifference(const Image& a, const Image& b) const {
    for (size_t i = 0; i < ranges_.size(); ++i) {
      auto [ia, ib] = std::mismatch(a[i].begin(), a[i].end(), b[i].begin());
      if (ia != a[i].end()) return ranges_[i].first + (ia - a[i].begin());
    }
    return nullptr;
  }
  // "buffer 1 ('out') element 7": the argument whose binding holds `address`.
  std::string describe(const uint8_t* address) const {
    const ArgumentInfo* best = nullptr;
    const uint8_t* bestBase = nullptr;
    for (const ArgumentInfo& a : request_.kernel->info.arguments) {
      if (a.role != ArgumentRole::Buffer) continue;
      const BoundArgument& b = request_.arguments[a.position];
      auto* base = static_cast<const uint8_t*>(b.buffer);
      auto* begin = static_cast<const uint8_t*>(b.regionBegin ? b.regionBegin : b.buffer);
      if (!base || address < begin || address >= begin + b.regionBytes) continue;
      // Prefer the binding the address lies after, and the closest of those.
      bool after = address >= base, bestAfter = best && address >= bestBase;
      if (!best || (after && !bestAfter) || (after == bestAfter && base > bestBase)) best = &a, bestBase = base;
    }
    if (!best) return "device memory";
    std::string text = "buffer " + std::to_string(best->binding);
    if (!best->name.empty()) text += " ('" + best->name + "')";
    int64_t offset = address - bestBase;
    if (best->pointeeSize && offset >= 0)
      return text + " element " + std::to_string(offset / int64_t(best->pointeeSize));
    return text + " byte offset " + std::to_string(offset);
  }

 private:
  const DispatchRequest& request_;
  std::vector<std::pair<uint8_t*, uint8_t*>> ranges_;
};

bool timedOut(const DispatchResult& r) {
  return std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.kind == "timeout"; });
}

}  // namespace

DispatchResult dispatchSettlingInactiveLaneReads(const DispatchRequest& request, const FillingDispatchRunner& run) {
  if (!request.options.checks.simd) return run(request, {});
  DeviceMemory memory(request);
  DeviceMemory::Image before = memory.save();
  DispatchResult result = run(request, {});
  auto isRead = [](const Finding& f) { return f.kind == kInactiveLaneRead && !f.locations.empty(); };
  if (result.refused || timedOut(result) || std::none_of(result.findings.begin(), result.findings.end(), isRead))
    return result;

  // Reruns from the memory the dispatch started with, on one worker (the same order of threadgroups
  // every time, so only the undefined values can make a difference), checking nothing that does
  // not keep memory safe, and quiet.
  DeviceMemory::Image after = memory.save();
  DispatchRequest rerun = request;
  DispatchOptions& o = rerun.options;
  o.workers = 1;
  o.checks.races = o.checks.uninit = o.checks.simd = o.checks.align = o.checks.reportUniformWrites = false;
  o.watch.clear();
  o.traceFile.clear();
  o.log = nullptr;
  o.trackWriters = false;
  o.progress = nullptr;
  o.maxErrors = 0;
  auto imageWith = [&](const InactiveLaneFill& fill) -> std::optional<DeviceMemory::Image> {
    memory.restore(before);
    DispatchResult r = run(rerun, fill);
    if (timedOut(r)) return std::nullopt;
    return memory.save();
  };
  std::optional<DeviceMemory::Image> zeros = imageWith({});
  // Whether the values read at one call site (or at all, without `onlyAt`) reach memory: compared
  // with all ones (NaN, -1) and 0x7F (a huge float, a large positive integer), a value used only
  // through a comparison or min/max changes the result for at least one of them. Null: they do
  // not; nullopt: a rerun did not finish.
  auto reachedBy = [&](std::optional<SourcePosition> onlyAt) -> std::optional<const uint8_t*> {
    if (!zeros) return std::nullopt;
    for (uint8_t byte : {uint8_t(0xFF), uint8_t(0x7F)}) {
      std::optional<DeviceMemory::Image> other = imageWith({byte, onlyAt});
      if (!other) return std::nullopt;
      if (const uint8_t* differs = memory.firstDifference(*zeros, *other)) return differs;
    }
    return nullptr;
  };
  std::vector<Finding*> reads;
  for (Finding& f : result.findings)
    if (isRead(f)) reads.push_back(&f);
  // One rerun pair for all call sites first: correct code (the values are dead) costs no more.
  std::optional<const uint8_t*> any = reachedBy(std::nullopt);
  std::vector<const Finding*> dead;
  for (Finding* f : reads) {
    std::optional<const uint8_t*> reached = any;
    if (any && *any && reads.size() > 1) reached = reachedBy(f->locations.front());
    if (reached && !*reached) {
      dead.push_back(f);
      continue;
    }
    f->message += reached ? "; the value reaches memory: " + memory.describe(*reached) + " changes with the undefined value"
                          : "; mslsim could not tell whether the value reaches memory (a rerun did not finish in time)";
  }
  memory.restore(after);
  result.findings.erase(std::remove_if(result.findings.begin(), result.findings.end(),
                                       [&](const Finding& f) {
                                         return std::find(dead.begin(), dead.end(), &f) != dead.end();
                                       }),
                        result.findings.end());
  return result;
}

}  // namespace mslsim
