// What the front end learned about each kernel of a program: plain data, free of LLVM and Clang
// types, shared by the simulator (to bind arguments), the runtime and the CLI's `compile` listing.
#pragma once

#include <mslsim/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mslsim {

enum class AddressSpace { Device, Constant, Threadgroup, Thread };

enum class ArgumentRole {
  Buffer,             // [[buffer(n)]]: a device or constant pointer or reference
  ThreadgroupMemory,  // [[threadgroup(n)]]: a threadgroup pointer sized at dispatch
  Builtin,            // [[thread_position_in_grid]] and the other compute built-ins
};

// The compute built-in values of the MSL specification (table "Attributes for kernel function
// input arguments").
enum class BuiltinValue {
  ThreadPositionInGrid,
  ThreadPositionInThreadgroup,
  ThreadgroupPositionInGrid,
  ThreadsPerThreadgroup,
  ThreadgroupsPerGrid,
  ThreadsPerGrid,
  ThreadIndexInThreadgroup,
  ThreadIndexInSimdgroup,
  SimdgroupIndexInThreadgroup,
  ThreadsPerSimdgroup,
  SimdgroupsPerThreadgroup,
  DispatchThreadsPerThreadgroup,
  DispatchSimdgroupsPerThreadgroup,
  ThreadIndexInQuadgroup,
  QuadgroupIndexInThreadgroup,
  ThreadsPerQuadgroup,
  QuadgroupsPerThreadgroup,
  GridOrigin,
  GridSize,
};

// Spelling in MSL (e.g. "thread_position_in_grid"); nullptr-free: every value has one.
const char* builtinName(BuiltinValue value);
// Parses an MSL attribute name; returns false if `name` is not a compute built-in.
bool parseBuiltinName(const std::string& name, BuiltinValue& value);


struct ArgumentInfo {
  std::string name;           // parameter name ("" if unnamed)
  unsigned position = 0;      // index in the kernel's parameter list
  ArgumentRole role = ArgumentRole::Buffer;
  unsigned binding = 0;       // n of [[buffer(n)]] / [[threadgroup(n)]]
  bool explicitBinding = false;
  AddressSpace space = AddressSpace::Device;
  bool isConst = false;       // pointee is const (a write through it is a bug)
  bool isReference = false;   // `constant T& x` rather than `constant T* x`
  std::string typeSpelling;   // as written in the source, e.g. "const device float*"
  std::string pointeeType;    // element type of a pointer/reference argument, e.g. "float"
  uint64_t pointeeSize = 0;   // sizeof the element type (0 if unknown/incomplete)
  uint64_t pointeeAlign = 0;  // alignof the element type (0 if unknown): Metal's offset alignment
  // Built-ins: which value, how many components the parameter has (1-3) and their size in bytes.
  BuiltinValue builtin = BuiltinValue::ThreadPositionInGrid;
  unsigned components = 1;
  unsigned componentSize = 4;
  SourcePosition location;
  // `[[buffer(n), function_constant(name)]]`: the argument exists only when the function constant
  // `name` is true. functionConstant is the name ("" for an ordinary argument) and enabled its
  // value in this compilation; a disabled argument need not be bound (it is passed as null).
  std::string functionConstant;
  bool enabled = true;
  // Whether the compiled kernel reads the argument at all (Metal's "active" arguments): an
  // argument the optimised code never loads, such as a buffer used only under a function constant
  // that is false, need not be bound. Set by the JIT; true until then.
  bool used = true;
};

// A program-scope `constant T name [[function_constant(index)]]`: set by the host when it builds a
// pipeline (`--constant index=value`); zero and not defined when it is not set.
struct FunctionConstantInfo {
  std::string name;
  unsigned index = 0;
  std::string type;  // as declared, e.g. "int16_t", "bool"
  // The type with every alias resolved, e.g. "short" for int16_t: what the type of a value given
  // to the constant is compared with (the Metal API refuses a value of another type).
  std::string canonicalType;
  SourcePosition location;
};

struct KernelInfo {
  std::string name;         // the host name: the function name or its [[host_name]]
  std::string entrySymbol;  // symbol of the generated trampoline: void(void** args)
  std::vector<ArgumentInfo> arguments;
  SourcePosition location;
  unsigned maxTotalThreadsPerThreadgroup = 0;  // [[max_total_threads_per_threadgroup(n)]], 0 if absent
  // The function constants its code reads without testing them with is_function_constant_defined
  // (Metal's required constants; by index): known for kernels whose code was generated.
  std::vector<FunctionConstantInfo> requiredFunctionConstants;

  // The argument bound at `index`; an enabled one wins over one disabled by its function constant
  // (those may share an index with another argument).
  const ArgumentInfo* bufferArgument(unsigned index) const {
    const ArgumentInfo* disabled = nullptr;
    for (auto& a : arguments)
      if (a.role == ArgumentRole::Buffer && a.binding == index) {
        if (a.enabled) return &a;
        if (!disabled) disabled = &a;
      }
    return disabled;
  }
  const ArgumentInfo* threadgroupArgument(unsigned index) const {
    for (auto& a : arguments)
      if (a.role == ArgumentRole::ThreadgroupMemory && a.binding == index) return &a;
    return nullptr;
  }
};

}  // namespace mslsim
