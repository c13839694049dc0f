#include "TieredKernel.h"

#include <algorithm>

namespace mslsim {

TieredKernel::TieredKernel(std::shared_ptr<const Program> program, std::string name) : name_(std::move(name)) {
  program->kernel(name_);  // made now (throws naming the kernels there are)
  if (program->tier() == CodeTier::Optimised) {
    optimised_ = std::move(program);
    return;
  }
  optimisedEstimateMs_ = std::max(kMinimumEstimateMs, kOptimisedCostPerQuickCost * program->codeMilliseconds(name_));
  quick_ = std::move(program);
}

const ExecutableKernel& TieredKernel::forDispatch(uint64_t threads) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!optimised_ && (threads >= kOptimiseAtOnceThreads || quickRunMs_ >= optimisedEstimateMs_))
    optimised_ = quick_->withKernelAt(name_, CodeTier::Optimised);
  return optimised_ ? optimised_->kernel(name_) : quick_->kernel(name_);
}

void TieredKernel::ran(const ExecutableKernel& code, double milliseconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (code.tier == CodeTier::Quick) quickRunMs_ += milliseconds;
}

}  // namespace mslsim
