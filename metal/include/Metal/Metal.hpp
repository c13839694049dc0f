// Metal for Linux: the compute subset of Apple's metal-cpp API (`MTL::`), with metal-cpp's names and
// signatures, running on mslsim. A program written against metal-cpp on macOS compiles unchanged
// against these headers and runs its kernels on the simulator, with mslsim's checks on every
// dispatch:
//
//   MTL::Device* device = MTL::CreateSystemDefaultDevice();
//   MTL::Library* library = device->newLibrary(NS::String::string(source, NS::UTF8StringEncoding),
//                                              nullptr, &error);
//   ... newFunction, newComputePipelineState, newCommandQueue, commandBuffer,
//   ... computeCommandEncoder, setBuffer, dispatchThreads, endEncoding, commit, waitUntilCompleted
//
// What differs from a GPU, by design (docs/metal-api.md has the whole list):
// * Libraries compile from MSL source (newLibrary(source, ...), or a path to a `.metal` file or to
//   a manifest of `.metal` files); `.metallib` binaries cannot run here.
// * A dispatch whose checks find an error (out of bounds, barrier divergence, race, timeout) fails
//   its command buffer: status() is CommandBufferStatusError and error()->localizedDescription()
//   is the finding with its source lines. MSLSIM_METAL_CHECKS chooses the checks (the CLI's
//   `--check` list; default "bounds,sync").
// * Queues run their command buffers in order, each on a thread of its own; the simulated GPU runs
//   one dispatch at a time (a dispatch uses every core).
// * Textures, render pipelines, blit encoders and binary archives are not here.
#pragma once

#include <Foundation/Foundation.hpp>

#include <cstdint>
#include <functional>

namespace MTL {

// --- Value types -------------------------------------------------------------------------------

struct Size {
  Size() = default;  // trivial: fields uninitialised, as in metal-cpp
  Size(NS::UInteger w, NS::UInteger h, NS::UInteger d) : width(w), height(h), depth(d) {}
  static Size Make(NS::UInteger w, NS::UInteger h, NS::UInteger d) { return Size(w, h, d); }
  NS::UInteger width, height, depth;
};

struct Origin {
  Origin() = default;
  Origin(NS::UInteger x_, NS::UInteger y_, NS::UInteger z_) : x(x_), y(y_), z(z_) {}
  static Origin Make(NS::UInteger x, NS::UInteger y, NS::UInteger z) { return Origin(x, y, z); }
  NS::UInteger x, y, z;
};

struct Region {
  Region() = default;
  Region(NS::UInteger x, NS::UInteger w) : origin(x, 0, 0), size(w, 1, 1) {}
  Region(NS::UInteger x, NS::UInteger y, NS::UInteger w, NS::UInteger h) : origin(x, y, 0), size(w, h, 1) {}
  Region(NS::UInteger x, NS::UInteger y, NS::UInteger z, NS::UInteger w, NS::UInteger h, NS::UInteger d)
      : origin(x, y, z), size(w, h, d) {}
  static Region Make1D(NS::UInteger x, NS::UInteger w) { return Region(x, w); }
  static Region Make2D(NS::UInteger x, NS::UInteger y, NS::UInteger w, NS::UInteger h) { return Region(x, y, w, h); }
  static Region Make3D(NS::UInteger x, NS::UInteger y, NS::UInteger z, NS::UInteger w, NS::UInteger h,
                       NS::UInteger d) {
    return Region(x, y, z, w, h, d);
  }
  Origin origin;
  Size size;
};

struct SizeAndAlign {
  NS::UInteger size;
  NS::UInteger align;
};

struct ResourceID {
  uint64_t _impl;
};

using GPUAddress = uint64_t;
using Timestamp = std::uint64_t;

// --- Enumerations and option sets --------------------------------------------------------------

enum GPUFamily : NS::Integer {
  GPUFamilyApple1 = 1001, GPUFamilyApple2 = 1002, GPUFamilyApple3 = 1003, GPUFamilyApple4 = 1004,
  GPUFamilyApple5 = 1005, GPUFamilyApple6 = 1006, GPUFamilyApple7 = 1007, GPUFamilyApple8 = 1008,
  GPUFamilyApple9 = 1009, GPUFamilyApple10 = 1010,
  GPUFamilyMac1 = 2001, GPUFamilyMac2 = 2002,
  GPUFamilyCommon1 = 3001, GPUFamilyCommon2 = 3002, GPUFamilyCommon3 = 3003,
  GPUFamilyMacCatalyst1 = 4001, GPUFamilyMacCatalyst2 = 4002,
  GPUFamilyMetal3 = 5001, GPUFamilyMetal4 = 5002,
};

enum DeviceLocation : NS::UInteger {
  DeviceLocationBuiltIn = 0, DeviceLocationSlot = 1, DeviceLocationExternal = 2,
  DeviceLocationUnspecified = NS::UIntegerMax,
};

using PipelineOption = NS::UInteger;
enum : PipelineOption {
  PipelineOptionNone = 0, PipelineOptionArgumentInfo = 1, PipelineOptionBindingInfo = 1,
  PipelineOptionBufferTypeInfo = 2, PipelineOptionFailOnBinaryArchiveMiss = 4,
};

enum StorageMode : NS::UInteger {
  StorageModeShared = 0, StorageModeManaged = 1, StorageModePrivate = 2, StorageModeMemoryless = 3,
};
enum CPUCacheMode : NS::UInteger { CPUCacheModeDefaultCache = 0, CPUCacheModeWriteCombined = 1 };
enum HazardTrackingMode : NS::UInteger {
  HazardTrackingModeDefault = 0, HazardTrackingModeUntracked = 1, HazardTrackingModeTracked = 2,
};
enum PurgeableState : NS::UInteger {
  PurgeableStateKeepCurrent = 1, PurgeableStateNonVolatile = 2, PurgeableStateVolatile = 3, PurgeableStateEmpty = 4,
};
enum HeapType : NS::Integer { HeapTypeAutomatic = 0, HeapTypePlacement = 1, HeapTypeSparse = 2 };

using ResourceOptions = NS::UInteger;
enum : ResourceOptions {
  ResourceCPUCacheModeDefaultCache = 0,
  ResourceCPUCacheModeWriteCombined = 1,
  ResourceStorageModeShared = 0,
  ResourceStorageModeManaged = 0x10,
  ResourceStorageModePrivate = 0x20,
  ResourceStorageModeMemoryless = 0x30,
  ResourceHazardTrackingModeDefault = 0,
  ResourceHazardTrackingModeUntracked = 0x100,
  ResourceHazardTrackingModeTracked = 0x200,
  ResourceOptionCPUCacheModeDefault = 0,
  ResourceOptionCPUCacheModeWriteCombined = 1,
};

enum MathMode : NS::Integer { MathModeSafe = 0, MathModeRelaxed = 1, MathModeFast = 2 };
enum MathFloatingPointFunctions : NS::Integer {
  MathFloatingPointFunctionsFast = 0, MathFloatingPointFunctionsPrecise = 1,
};
enum LanguageVersion : NS::UInteger {
  LanguageVersion1_0 = 65536, LanguageVersion1_1 = 65537, LanguageVersion1_2 = 65538,
  LanguageVersion2_0 = 131072, LanguageVersion2_1 = 131073, LanguageVersion2_2 = 131074,
  LanguageVersion2_3 = 131075, LanguageVersion2_4 = 131076,
  LanguageVersion3_0 = 196608, LanguageVersion3_1 = 196609, LanguageVersion3_2 = 196610,
  LanguageVersion4_0 = 262144,
};
enum LibraryType : NS::Integer { LibraryTypeExecutable = 0, LibraryTypeDynamic = 1 };
enum LibraryOptimizationLevel : NS::Integer { LibraryOptimizationLevelDefault = 0, LibraryOptimizationLevelSize = 1 };
enum CompileSymbolVisibility : NS::Integer { CompileSymbolVisibilityDefault = 0, CompileSymbolVisibilityHidden = 1 };
enum LibraryError : NS::UInteger {
  LibraryErrorUnsupported = 1, LibraryErrorInternal = 2, LibraryErrorCompileFailure = 3,
  LibraryErrorCompileWarning = 4, LibraryErrorFunctionNotFound = 5, LibraryErrorFileNotFound = 6,
};
enum FunctionType : NS::UInteger {
  FunctionTypeVertex = 1, FunctionTypeFragment = 2, FunctionTypeKernel = 3, FunctionTypeVisible = 5,
  FunctionTypeIntersection = 6, FunctionTypeMesh = 7, FunctionTypeObject = 8,
};
using FunctionOptions = NS::UInteger;
enum : FunctionOptions {
  FunctionOptionNone = 0, FunctionOptionCompileToBinary = 1, FunctionOptionStoreFunctionInMetalPipelinesScript = 2,
  FunctionOptionStoreFunctionInMetalScript = 2, FunctionOptionFailOnBinaryArchiveMiss = 4,
  FunctionOptionPipelineIndependent = 8,
};

enum DataType : NS::UInteger {
  DataTypeNone = 0, DataTypeStruct = 1, DataTypeArray = 2,
  DataTypeFloat = 3, DataTypeFloat2 = 4, DataTypeFloat3 = 5, DataTypeFloat4 = 6,
  DataTypeFloat2x2 = 7, DataTypeFloat2x3 = 8, DataTypeFloat2x4 = 9, DataTypeFloat3x2 = 10,
  DataTypeFloat3x3 = 11, DataTypeFloat3x4 = 12, DataTypeFloat4x2 = 13, DataTypeFloat4x3 = 14,
  DataTypeFloat4x4 = 15,
  DataTypeHalf = 16, DataTypeHalf2 = 17, DataTypeHalf3 = 18, DataTypeHalf4 = 19,
  DataTypeHalf2x2 = 20, DataTypeHalf2x3 = 21, DataTypeHalf2x4 = 22, DataTypeHalf3x2 = 23,
  DataTypeHalf3x3 = 24, DataTypeHalf3x4 = 25, DataTypeHalf4x2 = 26, DataTypeHalf4x3 = 27,
  DataTypeHalf4x4 = 28,
  DataTypeInt = 29, DataTypeInt2 = 30, DataTypeInt3 = 31, DataTypeInt4 = 32,
  DataTypeUInt = 33, DataTypeUInt2 = 34, DataTypeUInt3 = 35, DataTypeUInt4 = 36,
  DataTypeShort = 37, DataTypeShort2 = 38, DataTypeShort3 = 39, DataTypeShort4 = 40,
  DataTypeUShort = 41, DataTypeUShort2 = 42, DataTypeUShort3 = 43, DataTypeUShort4 = 44,
  DataTypeChar = 45, DataTypeChar2 = 46, DataTypeChar3 = 47, DataTypeChar4 = 48,
  DataTypeUChar = 49, DataTypeUChar2 = 50, DataTypeUChar3 = 51, DataTypeUChar4 = 52,
  DataTypeBool = 53, DataTypeBool2 = 54, DataTypeBool3 = 55, DataTypeBool4 = 56,
  DataTypeTexture = 58, DataTypeSampler = 59, DataTypePointer = 60,
  DataTypeRenderPipeline = 78, DataTypeComputePipeline = 79, DataTypeIndirectCommandBuffer = 80,
  DataTypeLong = 81, DataTypeLong2 = 82, DataTypeLong3 = 83, DataTypeLong4 = 84,
  DataTypeULong = 85, DataTypeULong2 = 86, DataTypeULong3 = 87, DataTypeULong4 = 88,
  DataTypeVisibleFunctionTable = 115, DataTypeIntersectionFunctionTable = 116,
  DataTypePrimitiveAccelerationStructure = 117, DataTypeInstanceAccelerationStructure = 118,
  DataTypeBFloat = 121, DataTypeBFloat2 = 122, DataTypeBFloat3 = 123, DataTypeBFloat4 = 124,
  DataTypeDepthStencilState = 139, DataTypeTensor = 140,
};

enum CommandBufferStatus : NS::UInteger {
  CommandBufferStatusNotEnqueued = 0, CommandBufferStatusEnqueued = 1, CommandBufferStatusCommitted = 2,
  CommandBufferStatusScheduled = 3, CommandBufferStatusCompleted = 4, CommandBufferStatusError = 5,
};
enum CommandBufferError : NS::UInteger {
  CommandBufferErrorNone = 0, CommandBufferErrorInternal = 1, CommandBufferErrorTimeout = 2,
  CommandBufferErrorPageFault = 3, CommandBufferErrorBlacklisted = 4, CommandBufferErrorAccessRevoked = 4,
  CommandBufferErrorNotPermitted = 7, CommandBufferErrorOutOfMemory = 8, CommandBufferErrorInvalidResource = 9,
  CommandBufferErrorMemoryless = 10, CommandBufferErrorDeviceRemoved = 11, CommandBufferErrorStackOverflow = 12,
};
using CommandBufferErrorOption = NS::UInteger;
enum : CommandBufferErrorOption { CommandBufferErrorOptionNone = 0, CommandBufferErrorOptionEncoderExecutionStatus = 1 };
enum DispatchType : NS::UInteger { DispatchTypeSerial = 0, DispatchTypeConcurrent = 1 };

using BarrierScope = NS::UInteger;
enum : BarrierScope { BarrierScopeBuffers = 1, BarrierScopeTextures = 2, BarrierScopeRenderTargets = 4 };
using ResourceUsage = NS::UInteger;
enum : ResourceUsage { ResourceUsageRead = 1, ResourceUsageWrite = 2, ResourceUsageSample = 4 };

enum CaptureDestination : NS::Integer { CaptureDestinationDeveloperTools = 1, CaptureDestinationGPUTraceDocument = 2 };
enum CaptureError : NS::Integer {
  CaptureErrorNotSupported = 1, CaptureErrorAlreadyCapturing = 2, CaptureErrorInvalidDescriptor = 3,
};

// --- Classes -----------------------------------------------------------------------------------

class Device;
class Heap;
class Function;
class FunctionConstantValues;
class ComputePipelineState;
class CommandQueue;
class CommandBuffer;
class Event;
class ResidencySet;

class Architecture : public NS::Copying<Architecture> {
 public:
  NS::String* name() const;  // "applegpu_g13g"

 protected:
  Architecture() = default;
};

class Allocation : public NS::Referencing<Allocation> {
 public:
  NS::UInteger allocatedSize() const;

 protected:
  Allocation() = default;
};

class Resource : public NS::Referencing<Resource, Allocation> {
 public:
  NS::UInteger allocatedSize() const;
  CPUCacheMode cpuCacheMode() const;
  StorageMode storageMode() const;
  HazardTrackingMode hazardTrackingMode() const;
  ResourceOptions resourceOptions() const;
  Device* device() const;
  Heap* heap() const;  // the heap it was made from, else null
  NS::UInteger heapOffset() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  PurgeableState setPurgeableState(PurgeableState state);
  bool isAliasable();
  void makeAliasable();

 protected:
  Resource() = default;
};

class Buffer : public NS::Referencing<Buffer, Resource> {
 public:
  void* contents();
  NS::UInteger length() const;
  void didModifyRange(NS::Range range);
  GPUAddress gpuAddress() const;
  void addDebugMarker(const NS::String* marker, NS::Range range);
  void removeAllDebugMarkers();

 protected:
  Buffer() = default;
};

class HeapDescriptor : public NS::Copying<HeapDescriptor> {
 public:
  static HeapDescriptor* alloc();
  HeapDescriptor* init();
  NS::UInteger size() const;
  void setSize(NS::UInteger size);
  StorageMode storageMode() const;
  void setStorageMode(StorageMode mode);
  CPUCacheMode cpuCacheMode() const;
  void setCpuCacheMode(CPUCacheMode mode);
  HazardTrackingMode hazardTrackingMode() const;
  void setHazardTrackingMode(HazardTrackingMode mode);
  ResourceOptions resourceOptions() const;
  void setResourceOptions(ResourceOptions options);
  HeapType type() const;
  void setType(HeapType type);

 protected:
  HeapDescriptor() = default;
};

// Buffers made from a heap count against its size: newBuffer returns null when it is full.
class Heap : public NS::Referencing<Heap, Allocation> {
 public:
  Buffer* newBuffer(NS::UInteger length, ResourceOptions options);
  NS::UInteger size() const;
  NS::UInteger usedSize() const;
  NS::UInteger currentAllocatedSize() const;
  NS::UInteger maxAvailableSize(NS::UInteger alignment);
  StorageMode storageMode() const;
  CPUCacheMode cpuCacheMode() const;
  HazardTrackingMode hazardTrackingMode() const;
  ResourceOptions resourceOptions() const;
  HeapType type() const;
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  PurgeableState setPurgeableState(PurgeableState state);

 protected:
  Heap() = default;
};

class CompileOptions : public NS::Copying<CompileOptions> {
 public:
  static CompileOptions* alloc();
  CompileOptions* init();
  bool fastMathEnabled() const;
  void setFastMathEnabled(bool enabled);
  MathMode mathMode() const;
  void setMathMode(MathMode mode);
  MathFloatingPointFunctions mathFloatingPointFunctions() const;
  void setMathFloatingPointFunctions(MathFloatingPointFunctions functions);
  LanguageVersion languageVersion() const;
  void setLanguageVersion(LanguageVersion version);
  bool enableLogging() const;
  void setEnableLogging(bool enabled);
  // NAME -> value (String or Number-like description): passed as -DNAME=value.
  NS::Dictionary* preprocessorMacros() const;
  void setPreprocessorMacros(const NS::Dictionary* macros);
  LibraryType libraryType() const;
  void setLibraryType(LibraryType type);
  NS::String* installName() const;
  void setInstallName(const NS::String* name);
  bool preserveInvariance() const;
  void setPreserveInvariance(bool preserve);
  LibraryOptimizationLevel optimizationLevel() const;
  void setOptimizationLevel(LibraryOptimizationLevel level);
  NS::UInteger maxTotalThreadsPerThreadgroup() const;
  void setMaxTotalThreadsPerThreadgroup(NS::UInteger threads);

 protected:
  CompileOptions() = default;
};

class FunctionConstantValues : public NS::Copying<FunctionConstantValues> {
 public:
  static FunctionConstantValues* alloc();
  FunctionConstantValues* init();
  // Scalar types (bool, integers, half, float, bfloat) are supported.
  void setConstantValue(const void* value, DataType type, NS::UInteger index);
  void setConstantValue(const void* value, DataType type, const NS::String* name);
  void setConstantValues(const void* values, DataType type, NS::Range range);
  void reset();

 protected:
  FunctionConstantValues() = default;
};

class FunctionDescriptor : public NS::Copying<FunctionDescriptor> {
 public:
  static FunctionDescriptor* functionDescriptor();  // +0
  static FunctionDescriptor* alloc();
  FunctionDescriptor* init();
  NS::String* name() const;
  void setName(const NS::String* name);
  NS::String* specializedName() const;
  void setSpecializedName(const NS::String* name);
  FunctionConstantValues* constantValues() const;
  void setConstantValues(const FunctionConstantValues* values);
  FunctionOptions options() const;
  void setOptions(FunctionOptions options);

 protected:
  FunctionDescriptor() = default;
};

class Function : public NS::Referencing<Function> {
 public:
  NS::String* name() const;
  FunctionType functionType() const;
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  FunctionOptions options() const;

 protected:
  Function() = default;
};

class Library : public NS::Referencing<Library> {
 public:
  Function* newFunction(const NS::String* name);  // +1; null when the library has no such kernel
  Function* newFunction(const NS::String* name, const FunctionConstantValues* values, NS::Error** error);
  Function* newFunction(const FunctionDescriptor* descriptor, NS::Error** error);
  void newFunction(const NS::String* name, const FunctionConstantValues* values,
                   const std::function<void(Function*, NS::Error*)>& completionHandler) {
    using E = NS::detail::ErasedFunction<std::function<void(Function*, NS::Error*)>>;
    newFunction(name, values, E::wrap(completionHandler), &E::invoke, &E::destroy);
  }
  void newFunction(const NS::String* name, const FunctionConstantValues* values, void* handler,
                   void (*invoke)(void*, Function*, NS::Error*), void (*destroy)(void*));
  NS::Array* functionNames() const;
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  LibraryType type() const;
  NS::String* installName() const;

 protected:
  Library() = default;
};

class LinkedFunctions : public NS::Copying<LinkedFunctions> {
 public:
  static LinkedFunctions* linkedFunctions();  // +0
  static LinkedFunctions* alloc();
  LinkedFunctions* init();
  NS::Array* functions() const;
  void setFunctions(const NS::Array* functions);
  NS::Array* privateFunctions() const;
  void setPrivateFunctions(const NS::Array* functions);
  NS::Array* binaryFunctions() const;
  void setBinaryFunctions(const NS::Array* functions);

 protected:
  LinkedFunctions() = default;
};

class ComputePipelineDescriptor : public NS::Copying<ComputePipelineDescriptor> {
 public:
  static ComputePipelineDescriptor* alloc();
  ComputePipelineDescriptor* init();
  Function* computeFunction() const;
  void setComputeFunction(const Function* function);
  LinkedFunctions* linkedFunctions() const;
  void setLinkedFunctions(const LinkedFunctions* functions);
  NS::String* label() const;
  void setLabel(const NS::String* label);
  NS::UInteger maxTotalThreadsPerThreadgroup() const;
  void setMaxTotalThreadsPerThreadgroup(NS::UInteger threads);
  bool threadGroupSizeIsMultipleOfThreadExecutionWidth() const;
  void setThreadGroupSizeIsMultipleOfThreadExecutionWidth(bool multiple);
  void reset();

 protected:
  ComputePipelineDescriptor() = default;
};

class ComputePipelineReflection : public NS::Referencing<ComputePipelineReflection> {
 protected:
  ComputePipelineReflection() = default;
};
using AutoreleasedComputePipelineReflection = ComputePipelineReflection*;

class ComputePipelineState : public NS::Referencing<ComputePipelineState, Allocation> {
 public:
  // 1024, or what the kernel's [[max_total_threads_per_threadgroup(n)]] or the descriptor says.
  NS::UInteger maxTotalThreadsPerThreadgroup() const;
  NS::UInteger threadExecutionWidth() const;  // 32
  NS::UInteger staticThreadgroupMemoryLength() const;
  Device* device() const;
  NS::String* label() const;
  ResourceID gpuResourceID() const;
  bool supportIndirectCommandBuffers() const;

 protected:
  ComputePipelineState() = default;
};

class Fence : public NS::Referencing<Fence> {
 public:
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);

 protected:
  Fence() = default;
};

class Event : public NS::Referencing<Event> {
 public:
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);

 protected:
  Event() = default;
};

class SharedEventHandle : public NS::SecureCoding<SharedEventHandle> {
 public:
  static SharedEventHandle* alloc();
  SharedEventHandle* init();
  NS::String* label() const;

 protected:
  SharedEventHandle() = default;
};

class SharedEventListener : public NS::Referencing<SharedEventListener> {
 public:
  static SharedEventListener* alloc();
  SharedEventListener* init();
  static SharedEventListener* sharedListener();  // +0

 protected:
  SharedEventListener() = default;
};

// A counter the CPU and queues signal and wait on: command buffers wait with encodeWait and
// signal with encodeSignalEvent; the CPU with waitUntilSignaledValue and setSignaledValue.
class SharedEvent : public NS::Referencing<SharedEvent, Event> {
 public:
  uint64_t signaledValue() const;
  void setSignaledValue(uint64_t value);
  // True once the value is reached; false after `timeoutMS` milliseconds (UINT64_MAX: forever).
  bool waitUntilSignaledValue(uint64_t value, uint64_t timeoutMS);
  SharedEventHandle* newSharedEventHandle();
  // Calls `function` on a thread of its own once the value is reached.
  void notifyListener(const SharedEventListener* listener, uint64_t value,
                      const std::function<void(SharedEvent*, std::uint64_t)>& function) {
    using E = NS::detail::ErasedFunction<std::function<void(SharedEvent*, std::uint64_t)>>;
    notifyListener(listener, value, E::wrap(function), &E::invoke, &E::destroy);
  }
  void notifyListener(const SharedEventListener* listener, uint64_t value, void* function,
                      void (*invoke)(void*, SharedEvent*, std::uint64_t), void (*destroy)(void*));

 protected:
  SharedEvent() = default;
};

class ResidencySetDescriptor : public NS::Copying<ResidencySetDescriptor> {
 public:
  static ResidencySetDescriptor* alloc();
  ResidencySetDescriptor* init();
  NS::String* label() const;
  void setLabel(const NS::String* label);
  NS::UInteger initialCapacity() const;
  void setInitialCapacity(NS::UInteger capacity);

 protected:
  ResidencySetDescriptor() = default;
};

// Residency has no meaning in a simulator: the set keeps its list of allocations and does nothing.
class ResidencySet : public NS::Referencing<ResidencySet> {
 public:
  void addAllocation(const Allocation* allocation);
  void addAllocations(const Allocation* const allocations[], NS::UInteger count);
  void removeAllocation(const Allocation* allocation);
  void removeAllocations(const Allocation* const allocations[], NS::UInteger count);
  void removeAllAllocations();
  bool containsAllocation(const Allocation* allocation);
  NS::UInteger allocationCount() const;
  uint64_t allocatedSize() const;
  void commit();
  void requestResidency();
  void endResidency();
  Device* device() const;
  NS::String* label() const;

 protected:
  ResidencySet() = default;
};

class CommandQueueDescriptor : public NS::Copying<CommandQueueDescriptor> {
 public:
  static CommandQueueDescriptor* alloc();
  CommandQueueDescriptor* init();
  NS::UInteger maxCommandBufferCount() const;
  void setMaxCommandBufferCount(NS::UInteger count);

 protected:
  CommandQueueDescriptor() = default;
};

class CommandBufferDescriptor : public NS::Copying<CommandBufferDescriptor> {
 public:
  static CommandBufferDescriptor* alloc();
  CommandBufferDescriptor* init();
  bool retainedReferences() const;
  void setRetainedReferences(bool retained);
  CommandBufferErrorOption errorOptions() const;
  void setErrorOptions(CommandBufferErrorOption options);

 protected:
  CommandBufferDescriptor() = default;
};

class ComputePassDescriptor : public NS::Copying<ComputePassDescriptor> {
 public:
  static ComputePassDescriptor* computePassDescriptor();  // +0
  static ComputePassDescriptor* alloc();
  ComputePassDescriptor* init();
  DispatchType dispatchType() const;
  void setDispatchType(DispatchType type);

 protected:
  ComputePassDescriptor() = default;
};

class CommandEncoder : public NS::Referencing<CommandEncoder> {
 public:
  void endEncoding();
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  void pushDebugGroup(const NS::String* name);
  void popDebugGroup();
  void insertDebugSignpost(const NS::String* name);

 protected:
  CommandEncoder() = default;
};

// Records dispatches into its command buffer; they run when the buffer is committed. Arguments are
// captured at each dispatch (setBytes copies, setBuffer binds the buffer at an offset).
class ComputeCommandEncoder : public NS::Referencing<ComputeCommandEncoder, CommandEncoder> {
 public:
  void setComputePipelineState(const ComputePipelineState* state);
  void setBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger index);
  void setBuffer(const Buffer* buffer, NS::UInteger offset, NS::UInteger stride, NS::UInteger index);
  void setBuffers(const Buffer* const buffers[], const NS::UInteger offsets[], NS::Range range);
  void setBufferOffset(NS::UInteger offset, NS::UInteger index);
  void setBytes(const void* bytes, NS::UInteger length, NS::UInteger index);
  void setBytes(const void* bytes, NS::UInteger length, NS::UInteger stride, NS::UInteger index);
  void setThreadgroupMemoryLength(NS::UInteger length, NS::UInteger index);
  void dispatchThreads(Size threadsPerGrid, Size threadsPerThreadgroup);
  void dispatchThreadgroups(Size threadgroupsPerGrid, Size threadsPerThreadgroup);
  void dispatchThreadgroups(const Buffer* indirectBuffer, NS::UInteger indirectBufferOffset,
                            Size threadsPerThreadgroup);
  // Dispatches run one after another, so these order nothing more than that already does.
  void memoryBarrier(BarrierScope scope);
  void memoryBarrier(const Resource* const resources[], NS::UInteger count);
  void waitForFence(const Fence* fence);
  void updateFence(const Fence* fence);
  void useResource(const Resource* resource, ResourceUsage usage);
  void useResources(const Resource* const resources[], NS::UInteger count, ResourceUsage usage);
  void useHeap(const Heap* heap);
  void useHeaps(const Heap* const heaps[], NS::UInteger count);
  DispatchType dispatchType() const;

 protected:
  ComputeCommandEncoder() = default;
};

using CommandBufferHandler = std::function<void(CommandBuffer*)>;
using HandlerFunction = std::function<void(CommandBuffer*)>;

class CommandBuffer : public NS::Referencing<CommandBuffer> {
 public:
  ComputeCommandEncoder* computeCommandEncoder();  // +0
  ComputeCommandEncoder* computeCommandEncoder(DispatchType type);  // +0
  ComputeCommandEncoder* computeCommandEncoder(const ComputePassDescriptor* descriptor);  // +0
  void enqueue();
  void commit();
  void waitUntilScheduled();
  void waitUntilCompleted();
  // Handlers run on the queue's thread, in the order added, once the buffer has run (or failed);
  // waitUntilCompleted returns after they have.
  void addScheduledHandler(const HandlerFunction& handler) {
    using E = NS::detail::ErasedFunction<HandlerFunction>;
    addScheduledHandler(E::wrap(handler), &E::invoke, &E::destroy);
  }
  void addCompletedHandler(const HandlerFunction& handler) {
    using E = NS::detail::ErasedFunction<HandlerFunction>;
    addCompletedHandler(E::wrap(handler), &E::invoke, &E::destroy);
  }
  void addScheduledHandler(void* handler, void (*invoke)(void*, CommandBuffer*), void (*destroy)(void*));
  void addCompletedHandler(void* handler, void (*invoke)(void*, CommandBuffer*), void (*destroy)(void*));
  void encodeSignalEvent(const Event* event, uint64_t value);
  void encodeWait(const Event* event, uint64_t value);
  CommandBufferStatus status() const;
  NS::Error* error() const;  // the first failed dispatch's findings, else null
  CommandBufferErrorOption errorOptions() const;
  bool retainedReferences() const;
  CommandQueue* commandQueue() const;
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);
  void pushDebugGroup(const NS::String* name);
  void popDebugGroup();
  double kernelStartTime() const;
  double kernelEndTime() const;
  double GPUStartTime() const;
  double GPUEndTime() const;
  void useResidencySet(const ResidencySet* set);
  void useResidencySets(const ResidencySet* const sets[], NS::UInteger count);

 protected:
  CommandBuffer() = default;
};

class CommandQueue : public NS::Referencing<CommandQueue> {
 public:
  CommandBuffer* commandBuffer();  // +0
  CommandBuffer* commandBufferWithUnretainedReferences();  // +0
  CommandBuffer* commandBuffer(const CommandBufferDescriptor* descriptor);  // +0
  void addResidencySet(const ResidencySet* set);
  void addResidencySets(const ResidencySet* const sets[], NS::UInteger count);
  void removeResidencySet(const ResidencySet* set);
  void removeResidencySets(const ResidencySet* const sets[], NS::UInteger count);
  void insertDebugCaptureBoundary();
  Device* device() const;
  NS::String* label() const;
  void setLabel(const NS::String* label);

 protected:
  CommandQueue() = default;
};

class CaptureDescriptor : public NS::Copying<CaptureDescriptor> {
 public:
  static CaptureDescriptor* alloc();
  CaptureDescriptor* init();
  NS::Object* captureObject() const;
  void setCaptureObject(NS::Object* object);
  CaptureDestination destination() const;
  void setDestination(CaptureDestination destination);
  NS::URL* outputURL() const;
  void setOutputURL(const NS::URL* url);

 protected:
  CaptureDescriptor() = default;
};

// There is no GPU to capture: startCapture fails with CaptureErrorNotSupported.
class CaptureManager : public NS::Referencing<CaptureManager> {
 public:
  static CaptureManager* sharedCaptureManager();  // +0
  bool startCapture(const CaptureDescriptor* descriptor, NS::Error** error);
  void stopCapture();
  bool isCapturing() const;
  bool supportsDestination(CaptureDestination destination);

 protected:
  CaptureManager() = default;
};

class Device : public NS::Referencing<Device> {
 public:
  NS::String* name() const;
  Architecture* architecture() const;  // +0
  uint64_t registryID() const;
  NS::UInteger maxBufferLength() const;
  uint64_t recommendedMaxWorkingSetSize() const;
  NS::UInteger currentAllocatedSize() const;
  Size maxThreadsPerThreadgroup() const;
  NS::UInteger maxThreadgroupMemoryLength() const;
  bool hasUnifiedMemory() const;
  bool isLowPower() const;
  bool isHeadless() const;
  bool isRemovable() const;
  DeviceLocation location() const;
  // The Apple7 family (M1-class, Metal 2.4 features): Apple1-7, Mac2, Common1-3; not Metal3.
  bool supportsFamily(GPUFamily family);

  CommandQueue* newCommandQueue();
  CommandQueue* newCommandQueue(NS::UInteger maxCommandBufferCount);
  CommandQueue* newCommandQueue(const CommandQueueDescriptor* descriptor);

  Buffer* newBuffer(NS::UInteger length, ResourceOptions options);
  Buffer* newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options);  // copies
  // Wraps the caller's memory (page-aligned, as Metal requires) without copying; `deallocator`
  // (may be null) is called with it when the buffer is released.
  Buffer* newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options,
                    const std::function<void(void*, NS::UInteger)>& deallocator) {
    using E = NS::detail::ErasedFunction<std::function<void(void*, NS::UInteger)>>;
    return newBuffer(pointer, length, options, E::wrap(deallocator), &E::invoke, &E::destroy);
  }
  Buffer* newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options, void* deallocator,
                    void (*invoke)(void*, void*, NS::UInteger), void (*destroy)(void*));
  Heap* newHeap(const HeapDescriptor* descriptor);
  SizeAndAlign heapBufferSizeAndAlign(NS::UInteger length, ResourceOptions options);
  Fence* newFence();
  Event* newEvent();
  SharedEvent* newSharedEvent();
  SharedEvent* newSharedEvent(const SharedEventHandle* handle);
  ResidencySet* newResidencySet(const ResidencySetDescriptor* descriptor, NS::Error** error);

  // MSL source: parsed and checked now (errors come back in `error` with the file:line message
  // and a null library); each function's code is generated when its pipeline is made.
  Library* newLibrary(const NS::String* source, const CompileOptions* options, NS::Error** error);
  void newLibrary(const NS::String* source, const CompileOptions* options,
                  const std::function<void(Library*, NS::Error*)>& completionHandler) {
    using E = NS::detail::ErasedFunction<std::function<void(Library*, NS::Error*)>>;
    newLibrary(source, options, E::wrap(completionHandler), &E::invoke, &E::destroy);
  }
  void newLibrary(const NS::String* source, const CompileOptions* options, void* handler,
                  void (*invoke)(void*, Library*, NS::Error*), void (*destroy)(void*));
  // A path to a `.metal` file, or to a library manifest (docs/metal-api.md): a text file whose
  // lines name `.metal` files (relative to it), `-I DIR` include directories and `-D NAME=VALUE`
  // macros. A `.metallib` binary is refused with LibraryErrorUnsupported.
  Library* newLibrary(const NS::String* filepath, NS::Error** error);
  Library* newLibrary(const NS::URL* url, NS::Error** error);
  Library* newDefaultLibrary();  // `default.metallib` beside the program: a manifest, as above

  ComputePipelineState* newComputePipelineState(const Function* function, NS::Error** error);
  ComputePipelineState* newComputePipelineState(const Function* function, PipelineOption options,
                                                const AutoreleasedComputePipelineReflection* reflection,
                                                NS::Error** error);
  ComputePipelineState* newComputePipelineState(const ComputePipelineDescriptor* descriptor, PipelineOption options,
                                                const AutoreleasedComputePipelineReflection* reflection,
                                                NS::Error** error);

 protected:
  Device() = default;
};

Device* CreateSystemDefaultDevice();  // +1
NS::Array* CopyAllDevices();          // +1: one device

}  // namespace MTL
