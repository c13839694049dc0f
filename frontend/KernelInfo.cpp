#include <mslsim/kernel_info.h>

namespace mslsim {
namespace {
struct BuiltinSpelling {
  BuiltinValue value;
  const char* name;
};
constexpr BuiltinSpelling kBuiltins[] = {
    {BuiltinValue::ThreadPositionInGrid, "thread_position_in_grid"},
    {BuiltinValue::ThreadPositionInThreadgroup, "thread_position_in_threadgroup"},
    {BuiltinValue::ThreadgroupPositionInGrid, "threadgroup_position_in_grid"},
    {BuiltinValue::ThreadsPerThreadgroup, "threads_per_threadgroup"},
    {BuiltinValue::ThreadgroupsPerGrid, "threadgroups_per_grid"},
    {BuiltinValue::ThreadsPerGrid, "threads_per_grid"},
    {BuiltinValue::ThreadIndexInThreadgroup, "thread_index_in_threadgroup"},
    {BuiltinValue::ThreadIndexInSimdgroup, "thread_index_in_simdgroup"},
    {BuiltinValue::SimdgroupIndexInThreadgroup, "simdgroup_index_in_threadgroup"},
    {BuiltinValue::ThreadsPerSimdgroup, "threads_per_simdgroup"},
    {BuiltinValue::SimdgroupsPerThreadgroup, "simdgroups_per_threadgroup"},
    {BuiltinValue::DispatchThreadsPerThreadgroup, "dispatch_threads_per_threadgroup"},
    {BuiltinValue::DispatchSimdgroupsPerThreadgroup, "dispatch_simdgroups_per_threadgroup"},
    {BuiltinValue::ThreadIndexInQuadgroup, "thread_index_in_quadgroup"},
    {BuiltinValue::QuadgroupIndexInThreadgroup, "quadgroup_index_in_threadgroup"},
    {BuiltinValue::ThreadsPerQuadgroup, "threads_per_quadgroup"},
    {BuiltinValue::QuadgroupsPerThreadgroup, "quadgroups_per_threadgroup"},
    {BuiltinValue::GridOrigin, "grid_origin"},
    {BuiltinValue::GridSize, "grid_size"},
    // Deprecated alias (Metal 1-2) of threads_per_simdgroup; builtinName() gives the first spelling.
    {BuiltinValue::ThreadsPerSimdgroup, "thread_execution_width"},
};
}  // namespace

const char* builtinName(BuiltinValue value) {
  for (auto& b : kBuiltins)
    if (b.value == value) return b.name;
  return "?";
}

bool parseBuiltinName(const std::string& name, BuiltinValue& value) {
  for (auto& b : kBuiltins)
    if (name == b.name) {
      value = b.value;
      return true;
    }
  return false;
}

}  // namespace mslsim
