// A kernel whose code is made in the quick tier first and again in the optimised tier once its
// dispatches are worth it (TierPolicy::Adaptive; docs/architecture.md, "Code tiers").
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "Program.h"

namespace mslsim {

class TieredKernel {
 public:
  // `program` holds `name` (or makes it on demand) at its tier: from the optimised tier there is
  // nothing left to do; from the quick tier the optimised code is made when it pays.
  TieredKernel(std::shared_ptr<const Program> program, std::string name);

  // The code for a dispatch of `threads` threads: the optimised code when it is made, or when this
  // dispatch is reason enough to make it now; else the quick code.
  const ExecutableKernel& forDispatch(uint64_t threads);
  // What a dispatch of `code` took, counted against making the optimised code.
  void ran(const ExecutableKernel& code, double milliseconds);

  // The rule (a ski rental: the time spent in quick code is never more than the optimised
  // build's estimated cost before it is made, so the total is at most twice the better choice
  // in hindsight). The optimised build is estimated at this many times the quick one (measured:
  // 5x for a row softmax, 8x for MLX's steel GEMM, parsing included in both).
  static constexpr double kOptimisedCostPerQuickCost = 6;
  static constexpr double kMinimumEstimateMs = 50;
  // A dispatch this large gets the optimised code before it runs: it would take longer in quick
  // code than most builds take.
  static constexpr uint64_t kOptimiseAtOnceThreads = uint64_t(1) << 20;

 private:
  std::mutex mutex_;
  std::string name_;
  std::shared_ptr<const Program> quick_, optimised_;
  double quickRunMs_ = 0, optimisedEstimateMs_ = 0;
};

}  // namespace mslsim
