// IR transformations that give the front end's C++-shaped module Metal's execution semantics.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace llvm {
class Module;
class Function;
}  // namespace llvm

namespace mslsim {

// Moves every `threadgroup` variable (a global annotated "msl_threadgroup_memory" by the front end)
// into the per-threadgroup arena: each use becomes arena base + offset, the base coming from the
// simulator for the running threadgroup. Variables of one kernel never overlap; variables of
// different kernels may share offsets. Returns, per entry function name, the bytes of threadgroup
// variables that kernel can reach.
std::map<std::string, uint64_t> lowerThreadgroupMemory(llvm::Module& module,
                                                       const std::string& entryPrefix);

// After optimisation: a cheap check of the cancel flag at every loop header, so a dispatch that
// exceeds its timeout can abandon threads stuck in endless loops.
void insertCancellationPolls(llvm::Module& module);

// Whether `entry` can reach a barrier or a SIMD-group function (an indirect call counts as yes).
bool reachesSynchronisation(llvm::Function& entry);

}  // namespace mslsim
