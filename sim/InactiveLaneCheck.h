// The SIMD check's verdict on reads of inactive lanes.
//
// A SIMD-group function that reads a lane taking no part in the call (one that returned, a lane
// outside a partial SIMD-group, an index past 31) gets an undefined value. Real kernels do it
// harmlessly: MLX's gemv reduces with simd_shuffle_down in every lane, and only lanes whose sums
// take nothing from a returned lane store them. So the read alone is not a bug; a value that
// reaches memory is. Following the value through arithmetic would need shadow state on every
// register; instead the dispatch is rerun from the same memory with the undefined value made of
// other bytes, and the reads are reported only when device memory then ends up different (the
// output depends on an undefined value). Correct code pays for the reruns only when it reads an
// inactive lane at all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "Executor.h"

namespace mslsim {

// What a read of an inactive lane yields: a value made of `byte`, at every SIMD-group function call
// or (`onlyAt`) at the one call at that user source position, zero elsewhere.
struct InactiveLaneFill {
  uint8_t byte = 0;
  std::optional<SourcePosition> onlyAt;
};
using FillingDispatchRunner = std::function<DispatchResult(const DispatchRequest&, const InactiveLaneFill&)>;

// Runs `request` (inactive lanes read as zero); with the SIMD check on, keeps its
// simd-inactive-lane findings (one per call site) only if the values read there reach device
// memory, and says where.
DispatchResult dispatchSettlingInactiveLaneReads(const DispatchRequest& request, const FillingDispatchRunner& run);

}  // namespace mslsim
