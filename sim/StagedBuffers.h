// A dispatch's buffers moved into guarded memory for an unchecked run (GuardedMemory.h says why).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "Executor.h"
#include "GuardedMemory.h"

namespace mslsim {

// A dispatch's device buffers that are not guarded already (HostArray's are; a numpy array bound
// in place is not), copied into guarded memory for the run (the request's bindings
// rewritten to point there, aliases and views of one allocation kept together) and copied back.
class StagedBuffers {
 public:
  explicit StagedBuffers(DispatchRequest& request);
  void copyBack();

 private:
  struct Allocation {
    uint8_t* host;
    GuardedMemory staged;
  };
  std::vector<Allocation> allocations_;
};

// A dispatch's device allocations: the byte ranges behind its buffer arguments, overlapping ones
// (views and aliases of one allocation) merged, in address order.
std::vector<std::pair<uint8_t*, uint8_t*>> boundAllocations(const DispatchRequest& request);

}  // namespace mslsim
