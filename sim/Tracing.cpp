// Observers that show what happened rather than judge it: `--watch` prints every access to one
// element; `--trace` records threadgroups, barrier intervals, SIMD-group functions and findings as
// Chrome trace events (open the file in Perfetto or chrome://tracing).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "Observer.h"

namespace mslsim {

namespace {

std::string coords(Size3 s) {
  return "(" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) + ")";
}

std::string position(const SourcePosition& p) {
  return p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

// What `--watch` names: an element of a threadgroup variable or of a kernel argument.
struct WatchTarget {
  bool threadgroup = false;  // arena offsets, else device addresses
  uint64_t begin = 0, end = 0;
  std::string label;
};

WatchTarget parseWatch(const std::string& spec, const DispatchFacts& facts) {
  size_t open = spec.find('['), close = spec.rfind(']');
  if (open == std::string::npos || close != spec.size() - 1 || close < open + 2)
    throw std::invalid_argument("--watch " + spec + ": expected NAME[INDEX] or buffer:N[INDEX]");
  std::string name = spec.substr(0, open);
  long long index = std::stoll(spec.substr(open + 1, close - open - 1));
  WatchTarget t;
  t.label = spec;
  auto byElement = [&](uint64_t base, uint64_t elementSize) {
    t.begin = base + uint64_t(index) * elementSize;
    t.end = t.begin + elementSize;
  };
  if (name.rfind("buffer:", 0) == 0) {
    unsigned binding = unsigned(std::stoul(name.substr(7)));
    for (auto& r : facts.buffers)
      if (r.argument->binding == binding) {
        byElement(r.base, r.argument->pointeeSize ? r.argument->pointeeSize : 1);
        return t;
      }
    throw std::invalid_argument("--watch " + spec + ": the kernel has no [[buffer(" + std::to_string(binding) + ")]]");
  }
  for (auto& v : facts.kernel->threadgroupVariables)
    if (v.name == name) {
      t.threadgroup = true;
      byElement(v.offset, v.elementSize);
      return t;
    }
  for (auto& r : facts.buffers)
    if (r.argument->name == name) {
      byElement(r.base, r.argument->pointeeSize ? r.argument->pointeeSize : 1);
      return t;
    }
  for (auto& r : facts.threadgroupArguments)
    if (r.argument->name == name) {
      t.threadgroup = true;
      byElement(r.base, r.argument->pointeeSize ? r.argument->pointeeSize : 1);
      return t;
    }
  throw std::invalid_argument("--watch " + spec + ": no threadgroup variable or argument named '" + name + "'");
}

class WatchObserver : public ExecutionObserver {
 public:
  WatchObserver(const DispatchFacts& facts, WatchTarget target) : facts_(facts), target_(std::move(target)) {}

  void threadgroupBegin(const ThreadIdentity&, char*) override { interval_ = 0; }
  void threadgroupBarrier(unsigned) override { ++interval_; }

  void access(const ThreadIdentity& t, const MemoryAccess& a) override {
    uint64_t begin = target_.threadgroup ? a.arenaOffset : a.address;
    if (target_.threadgroup != (a.target == MemoryAccess::Target::Threadgroup)) return;
    if (begin >= target_.end || begin + a.size <= target_.begin) return;
    // Accesses are observed before they happen: a load reads what memory holds, a store writes
    // the bytes it comes with (unknown for atomics: memory's current value is shown).
    uint64_t from = std::max(begin, target_.begin), to = std::min(begin + a.size, target_.end);
    const uint8_t* bytes = a.newValue ? a.newValue + (from - begin)
                                      : reinterpret_cast<const uint8_t*>(a.address + (from - begin));
    std::string value = "0x";
    char hex[3];
    for (uint64_t i = to - from; i-- > 0;) {
      std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
      value += hex;
    }
    if (to - from == 4) {
      float f;
      int32_t n;
      std::memcpy(&f, bytes, 4);
      std::memcpy(&n, bytes, 4);
      char more[64];
      std::snprintf(more, sizeof more, " (%g as float, %d as int)", double(f), n);
      value += more;
    }
    facts_.log("watch " + target_.label + ": " + accessOpName(a.site->op) + " " + value + " by thread " +
               coords(t.local()) + " lane " + std::to_string(t.lane()) + " of threadgroup " + coords(t.group) +
               " at " + position(a.site->where) + ", barrier interval " + std::to_string(interval_));
  }

 private:
  const DispatchFacts& facts_;
  WatchTarget target_;
  unsigned interval_ = 0;
};

struct TraceState {
  std::mutex mutex;
  nlohmann::json events = nlohmann::json::array();
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  static constexpr uint64_t kMaxTracedThreadgroups = 256;  // keeps files openable
  double now() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
};

class TraceObserver : public ExecutionObserver {
 public:
  explicit TraceObserver(TraceState& state) : state_(state) {}

  void threadgroupBegin(const ThreadIdentity& first, char*) override {
    group_ = first;
    traced_ = first.groupLinear < TraceState::kMaxTracedThreadgroups;
    groupStart_ = intervalStart_ = state_.now();
    interval_ = 0;
  }
  void threadgroupBarrier(unsigned flags) override {
    if (!traced_) return;
    double t = state_.now();
    add({{"name", "barrier interval " + std::to_string(interval_++)}, {"ph", "X"}, {"ts", intervalStart_},
         {"dur", t - intervalStart_}, {"pid", 1}, {"tid", group_.groupLinear}, {"cat", "interval"}});
    intervalStart_ = t;
  }
  void simdCollective(uint32_t simdgroup, uint32_t mask, const SourcePosition& where) override {
    if (!traced_) return;
    add({{"name", "SIMD-group " + std::to_string(simdgroup) + " at line " + std::to_string(where.line)},
         {"ph", "i"}, {"s", "t"}, {"ts", state_.now()}, {"pid", 1}, {"tid", group_.groupLinear}, {"cat", "simd"},
         {"args", {{"where", position(where)}, {"active_lanes", __builtin_popcount(mask)}}}});
  }
  void threadgroupEnd() override {
    if (!traced_) return;
    double t = state_.now();
    add({{"name", "threadgroup " + coords(group_.group)}, {"ph", "X"}, {"ts", groupStart_}, {"dur", t - groupStart_},
         {"pid", 1}, {"tid", group_.groupLinear}, {"cat", "threadgroup"}});
    add({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", group_.groupLinear},
         {"args", {{"name", "threadgroup " + coords(group_.group)}}}});
  }
  void finding(const Finding& f) override {
    add({{"name", f.kind}, {"ph", "i"}, {"s", "g"}, {"ts", state_.now()}, {"pid", 1}, {"tid", group_.groupLinear},
         {"cat", "finding"}, {"args", {{"message", f.message}, {"severity", f.severity == Finding::Severity::Error ? "error" : "warning"}}}});
  }

 private:
  void add(nlohmann::json event) {
    std::lock_guard<std::mutex> lock(state_.mutex);
    state_.events.push_back(std::move(event));
  }
  TraceState& state_;
  ThreadIdentity group_;
  bool traced_ = false;
  double groupStart_ = 0, intervalStart_ = 0;
  unsigned interval_ = 0;
};

// Who last wrote each element of each buffer (DispatchOptions::trackWriters).
struct WriterState {
  std::map<unsigned, std::vector<ElementWriter>> writers;  // by [[buffer(n)]]
};

class WriterTracker : public ExecutionObserver {
 public:
  WriterTracker(const DispatchFacts& facts, WriterState& state) : facts_(facts), state_(state) {
    for (auto& r : facts.buffers) {
      uint64_t element = r.argument->pointeeSize ? r.argument->pointeeSize : 1;
      state_.writers[r.argument->binding].resize((r.end - r.base) / element);
    }
  }
  void access(const ThreadIdentity& t, const MemoryAccess& a) override {
    if (!isWrite(a.site->op) || a.target != MemoryAccess::Target::Buffer || !a.region || a.address < a.region->base)
      return;
    uint64_t element = a.region->argument->pointeeSize ? a.region->argument->pointeeSize : 1;
    auto& writers = state_.writers[a.region->argument->binding];
    for (uint64_t e = (a.address - a.region->base) / element;
         e <= (a.address + a.size - 1 - a.region->base) / element && e < writers.size(); ++e)
      writers[e] = {true, t.group, t.local()};
  }

 private:
  const DispatchFacts& facts_;
  WriterState& state_;
};

}  // namespace

std::map<unsigned, std::vector<ElementWriter>> takeWriters(const std::shared_ptr<void>& writerState) {
  if (!writerState) return {};
  return std::move(static_cast<WriterState*>(writerState.get())->writers);
}

std::vector<std::unique_ptr<ExecutionObserver>> makeWriterTrackers(const DispatchFacts& facts,
                                                                   std::shared_ptr<void>& sharedState) {
  std::vector<std::unique_ptr<ExecutionObserver>> observers;
  if (!facts.kernel->instrumented) return observers;
  if (!sharedState) sharedState = std::make_shared<WriterState>();
  observers.push_back(std::make_unique<WriterTracker>(facts, *static_cast<WriterState*>(sharedState.get())));
  return observers;
}

std::vector<std::unique_ptr<ExecutionObserver>> makeTracers(const DispatchFacts& facts, const DispatchRequest& request,
                                                            std::shared_ptr<void>& sharedState) {
  std::vector<std::unique_ptr<ExecutionObserver>> observers;
  if (!request.options.watch.empty() && facts.kernel->instrumented && facts.log)
    observers.push_back(std::make_unique<WatchObserver>(facts, parseWatch(request.options.watch, facts)));
  if (!request.options.traceFile.empty()) {
    if (!sharedState) sharedState = std::make_shared<TraceState>();
    observers.push_back(std::make_unique<TraceObserver>(*static_cast<TraceState*>(sharedState.get())));
  }
  return observers;
}

void writeTrace(const std::shared_ptr<void>& sharedState, const std::string& path) {
  if (!sharedState) return;
  auto& state = *static_cast<TraceState*>(sharedState.get());
  std::ofstream out(path);
  out << nlohmann::json({{"traceEvents", state.events}, {"displayTimeUnit", "ms"}}).dump() << "\n";
}

}  // namespace mslsim
