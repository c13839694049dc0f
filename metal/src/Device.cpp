// The simulated device and what it makes that is not code: buffers, heaps, fences, events,
// residency sets, the capture manager.
#include "Objects.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <cstdio>

namespace mslsim::metal {

namespace {

// How the device runs dispatches, from the environment (docs/metal-api.md):
//   MSLSIM_METAL_CHECKS       the CLI's --check list (default "bounds,sync")
//   MSLSIM_METAL_TIMEOUT      seconds a dispatch may run before it is reported (default 60)
//   MSLSIM_METAL_REPORT_JSON  a file each failing dispatch's findings are appended to, one JSON
//                             document per line (the schema of `mslsim run --report-json`)
//   MSLSIM_METAL_REPORT_SARIF one SARIF 2.1.0 log of the findings of every failing dispatch,
//                             rewritten whole after each one (a crash later loses nothing)
//   MSLSIM_METAL_STATS        a file the process appends one JSON line to when it exits: how
//                             many libraries, pipeline states and dispatches it made, and their
//                             seconds (docs/metal-api.md)
//   MSLSIM_METAL_TIER         how kernels' code is made: adaptive (default: quick code first, the
//                             optimised code once a pipeline's dispatches are worth it), quick
//                             or optimised (docs/architecture.md, "Code tiers")
//   MSLSIM_METAL_RECORD       a directory where each pipeline state the program makes is
//                             recorded: its library's source and what the pipeline asked for
//                             (bench/pipeline_latency.cpp replays them; docs/performance.md)
//   MSLSIM_METAL_SUPPRESSIONS a suppressions file (docs/checks.md): the findings it matches are
//                             dropped; at exit, how many, and the rules that matched nothing
//   MSLSIM_METAL_FINDINGS     fail (default): a dispatch with an error fails its command buffer;
//                             report: its findings are printed on stderr and written to the
//                             reports, its results kept, and the command buffer completes
// A bad value leaves the program without a device, with a message saying which variable is wrong.
DeviceObject* systemDevice();

void summariseSuppressions() {
  DeviceObject* d = systemDevice();
  if (!d || !d->dispatchOptions.suppressions) return;
  for (const std::string& line : d->dispatchOptions.suppressions->summary(d->suppressionsPath))
    std::cerr << "mslsim (Metal): " << line << "\n";
}

void writeStatistics() {
  DeviceObject* d = systemDevice();
  if (!d) return;
  auto part = [](const char* name, const WorkCounter& c) {
    char text[160];
    std::snprintf(text, sizeof text, "\"%s\": {\"count\": %llu, \"seconds\": %.6f}", name,
                  (unsigned long long)c.count.load(), double(c.micros.load()) / 1e6);
    return std::string(text);
  };
  std::ofstream out(d->statsPath, std::ios::app);
  out << "{\"pid\": " << ::getpid() << ", " << part("libraries", d->stats.libraries) << ", "
      << part("pipelines", d->stats.pipelines) << ", " << part("dispatches", d->stats.dispatches) << ", "
      << part("dispatches_in_quick_code", d->stats.quickDispatches) << ", "
      << part("dispatches_in_optimised_code", d->stats.optimisedDispatches) << "}\n";
  if (!out) warnUnwritable("MSLSIM_METAL_STATS", d->statsPath);
}

DeviceObject* createDevice() {
  auto* d = new DeviceObject();
  d->name.reset(NS::String::string("mslsim simulated Apple GPU", NS::UTF8StringEncoding));
  auto* arch = new ArchitectureObject();
  arch->name.reset(NS::String::string("applegpu_g13g", NS::UTF8StringEncoding));  // M1-class
  d->architecture.reset(arch);
  arch->release();
  const char* checks = std::getenv("MSLSIM_METAL_CHECKS");
  try {
    d->checks = mslsim::parseCheckList(checks && *checks ? checks : "bounds,sync");
  } catch (const mslsim::Error& e) {
    throw mslsim::Error(std::string("MSLSIM_METAL_CHECKS: ") + e.what());
  }
  d->dispatchOptions.checks = d->checks;
  if (const char* timeout = std::getenv("MSLSIM_METAL_TIMEOUT"); timeout && *timeout) {
    char* end = nullptr;
    double seconds = std::strtod(timeout, &end);
    if (*end || !(seconds > 0)) throw mslsim::Error(std::string("MSLSIM_METAL_TIMEOUT: not a number of seconds: '") + timeout + "'");
    d->dispatchOptions.timeoutSeconds = seconds;
  }
  if (const char* report = std::getenv("MSLSIM_METAL_REPORT_JSON")) d->reportJsonPath = report;
  if (const char* report = std::getenv("MSLSIM_METAL_REPORT_SARIF")) d->reportSarifPath = report;
  if (const char* record = std::getenv("MSLSIM_METAL_RECORD"); record && *record) d->recordPath = record;
  if (const char* tier = std::getenv("MSLSIM_METAL_TIER"); tier && *tier)
    d->tiers = mslsim::parseTierPolicy(tier, "MSLSIM_METAL_TIER");
  if (const char* path = std::getenv("MSLSIM_METAL_SUPPRESSIONS"); path && *path) {
    try {
      d->dispatchOptions.suppressions = mslsim::Suppressions::fromFile(path);
    } catch (const mslsim::Error& e) {
      throw mslsim::Error(std::string("MSLSIM_METAL_SUPPRESSIONS: ") + e.what());
    }
    d->suppressionsPath = path;
    std::atexit(summariseSuppressions);
  }
  if (const char* mode = std::getenv("MSLSIM_METAL_FINDINGS"); mode && *mode) {
    if (std::string(mode) != "fail" && std::string(mode) != "report")
      throw mslsim::Error(std::string("MSLSIM_METAL_FINDINGS: '") + mode + "': expected fail or report");
    d->reportFindings = std::string(mode) == "report";
  }
  if (const char* stats = std::getenv("MSLSIM_METAL_STATS"); stats && *stats) {
    d->statsPath = stats;
    std::atexit(writeStatistics);
  }
  return d;
}

DeviceObject* systemDevice() {
  static DeviceObject* device = [] {
    try {
      return createDevice();  // one reference held here for the life of the process
    } catch (const mslsim::Error& e) {
      std::cerr << "mslsim (Metal): no device: " << e.what() << "\n";
      return static_cast<DeviceObject*>(nullptr);
    }
  }();
  return device;
}

}  // namespace

void warnUnwritable(const char* variable, const std::string& path) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(variable).second)
    std::fprintf(stderr, "mslsim: cannot write '%s' (%s); the reports are not kept\n", path.c_str(), variable);
}

DeviceObject& device(const MTL::Device* d) { return *static_cast<DeviceObject*>(const_cast<MTL::Device*>(d)); }

BufferObject::~BufferObject() {
  if (guarded) {
    mslsim::releaseGuarded(data, length);
    static_cast<DeviceObject*>(device)->allocated -= length;
  } else if (deallocator) {
    deallocator(data, length);
  }
  if (heap) static_cast<HeapObject*>(heap.get())->used -= length;
}

void SharedEventObject::waitFor(uint64_t target) {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return value >= target; });
}

}  // namespace mslsim::metal

using namespace mslsim::metal;

namespace MTL {

Device* CreateSystemDefaultDevice() { return retained(systemDevice()); }

NS::Array* CopyAllDevices() {
  NS::Array* devices = NS::Array::alloc();
  if (DeviceObject* d = systemDevice()) {
    const NS::Object* object = d;
    devices->init(&object, 1);
  } else {
    devices->init();
  }
  return devices;
}

NS::String* Architecture::name() const { return static_cast<const ArchitectureObject*>(this)->name.get(); }

// --- Device -------------------------------------------------------------------------------------

NS::String* Device::name() const { return device(this).name.get(); }
Architecture* Device::architecture() const { return device(this).architecture.get(); }
uint64_t Device::registryID() const { return 0x6d736c73696d; }
NS::UInteger Device::maxBufferLength() const { return NS::UInteger(1) << 36; }
uint64_t Device::recommendedMaxWorkingSetSize() const {
  // Three quarters of the machine's memory, as macOS recommends of unified memory.
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) / 4 * 3 : uint64_t(8) << 30;
}
NS::UInteger Device::currentAllocatedSize() const { return device(this).allocated.load(); }
Size Device::maxThreadsPerThreadgroup() const { return Size(1024, 1024, 1024); }
NS::UInteger Device::maxThreadgroupMemoryLength() const { return 32768; }
bool Device::hasUnifiedMemory() const { return true; }
bool Device::isLowPower() const { return false; }
bool Device::isHeadless() const { return true; }
bool Device::isRemovable() const { return false; }
DeviceLocation Device::location() const { return DeviceLocationBuiltIn; }

bool Device::supportsFamily(GPUFamily family) {
  switch (family) {
    case GPUFamilyApple1: case GPUFamilyApple2: case GPUFamilyApple3: case GPUFamilyApple4:
    case GPUFamilyApple5: case GPUFamilyApple6: case GPUFamilyApple7:
    case GPUFamilyMac2: case GPUFamilyCommon1: case GPUFamilyCommon2: case GPUFamilyCommon3:
      return true;
    default:
      return false;
  }
}

CommandQueue* Device::newCommandQueue() {
  auto* q = new CommandQueueObject();
  q->device = this;
  return q;
}
CommandQueue* Device::newCommandQueue(NS::UInteger) { return newCommandQueue(); }
CommandQueue* Device::newCommandQueue(const CommandQueueDescriptor*) { return newCommandQueue(); }

Buffer* Device::newBuffer(NS::UInteger length, ResourceOptions options) {
  // Metal returns nil for a buffer longer than maxBufferLength, or memory it cannot have.
  if (length > maxBufferLength() || length > mslsim::maxBufferBytes()) return nullptr;
  uint8_t* data = nullptr;
  try {
    data = static_cast<uint8_t*>(mslsim::allocateGuarded(length));  // zero-filled pages
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  auto* b = new BufferObject();
  b->device = this;
  b->options = options;
  b->length = length;
  b->data = data;
  device(this).allocated += length;
  return b;
}

Buffer* Device::newBuffer(const void* bytes, NS::UInteger length, ResourceOptions options) {
  Buffer* b = newBuffer(length, options);
  if (b && length) std::memcpy(b->contents(), bytes, length);
  return b;
}

Buffer* Device::newBuffer(const void* pointer, NS::UInteger length, ResourceOptions options, void* deallocator,
                          void (*invoke)(void*, void*, NS::UInteger), void (*destroy)(void*)) {
  auto* b = new BufferObject();
  b->device = this;
  b->options = options;
  b->length = length;
  b->data = static_cast<uint8_t*>(const_cast<void*>(pointer));
  b->guarded = false;  // the program's memory: a dispatch stages it into guarded memory
  b->deallocator = PlainCallback<void*, NS::UInteger>(deallocator, invoke, destroy);
  return b;
}

Heap* Device::newHeap(const HeapDescriptor* descriptor) {
  auto* d = static_cast<const HeapDescriptorObject*>(descriptor);
  auto* h = new HeapObject();
  h->device = this;
  h->size = d->size;
  h->options = d->options;
  h->type = d->type;
  return h;
}

SizeAndAlign Device::heapBufferSizeAndAlign(NS::UInteger length, ResourceOptions) {
  constexpr NS::UInteger align = 16384;
  return {(length + align - 1) / align * align, align};
}

Fence* Device::newFence() {
  auto* f = new FenceObject();
  f->device = this;
  return f;
}
Event* Device::newEvent() { return newSharedEvent(); }
SharedEvent* Device::newSharedEvent() {
  auto* e = new SharedEventObject();
  e->device = this;
  return e;
}
SharedEvent* Device::newSharedEvent(const SharedEventHandle* handle) {
  return retained(static_cast<const SharedEventHandleObject*>(handle)->event.get());
}

ResidencySet* Device::newResidencySet(const ResidencySetDescriptor* descriptor, NS::Error** error) {
  auto* r = new ResidencySetObject();
  r->device = this;
  if (descriptor) r->label = static_cast<const ResidencySetDescriptorObject*>(descriptor)->label;
  succeed(error);
  return r;
}

// --- Resources ----------------------------------------------------------------------------------

NS::UInteger Allocation::allocatedSize() const { MSLSIM_NIL_ANSWERS(0);
  // Buffers, heaps and pipeline states are allocations; only the first two have a size.
  if (auto* b = dynamic_cast<const BufferObject*>(this)) return b->length;
  if (auto* h = dynamic_cast<const HeapObject*>(this)) return h->size;
  return 0;
}

namespace {
const BufferObject& buffer(const Resource* r) { return *static_cast<const BufferObject*>(r); }
}  // namespace

NS::UInteger Resource::allocatedSize() const { MSLSIM_NIL_ANSWERS(0); return buffer(this).length; }
CPUCacheMode Resource::cpuCacheMode() const { return CPUCacheMode(buffer(this).options & 0xf); }
StorageMode Resource::storageMode() const { MSLSIM_NIL_ANSWERS(StorageModeShared); return StorageMode((buffer(this).options >> 4) & 0xf); }
HazardTrackingMode Resource::hazardTrackingMode() const { return HazardTrackingMode((buffer(this).options >> 8) & 0x3); }
ResourceOptions Resource::resourceOptions() const { return buffer(this).options; }
Device* Resource::device() const { MSLSIM_NIL_ANSWERS(nullptr); return buffer(this).device; }
Heap* Resource::heap() const { MSLSIM_NIL_ANSWERS(nullptr); return buffer(this).heap.get(); }
NS::UInteger Resource::heapOffset() const { return 0; }
NS::String* Resource::label() const { return buffer(this).label.get(); }
void Resource::setLabel(const NS::String* label) { static_cast<BufferObject*>(this)->label.reset(label); }
PurgeableState Resource::setPurgeableState(PurgeableState) { return PurgeableStateNonVolatile; }
bool Resource::isAliasable() { return false; }
void Resource::makeAliasable() {}

void* Buffer::contents() { MSLSIM_NIL_ANSWERS(nullptr); return static_cast<BufferObject*>(this)->data; }
NS::UInteger Buffer::length() const { MSLSIM_NIL_ANSWERS(0); return static_cast<const BufferObject*>(this)->length; }
void Buffer::didModifyRange(NS::Range) {}
GPUAddress Buffer::gpuAddress() const { return reinterpret_cast<GPUAddress>(static_cast<const BufferObject*>(this)->data); }
void Buffer::addDebugMarker(const NS::String*, NS::Range) {}
void Buffer::removeAllDebugMarkers() {}

HeapDescriptor* HeapDescriptor::alloc() { return new HeapDescriptorObject(); }
HeapDescriptor* HeapDescriptor::init() { return this; }
#define MSLSIM_HEAP_DESCRIPTOR static_cast<HeapDescriptorObject*>(this)
#define MSLSIM_CONST_HEAP_DESCRIPTOR static_cast<const HeapDescriptorObject*>(this)
NS::UInteger HeapDescriptor::size() const { return MSLSIM_CONST_HEAP_DESCRIPTOR->size; }
void HeapDescriptor::setSize(NS::UInteger size) { MSLSIM_HEAP_DESCRIPTOR->size = size; }
StorageMode HeapDescriptor::storageMode() const { return StorageMode((MSLSIM_CONST_HEAP_DESCRIPTOR->options >> 4) & 0xf); }
void HeapDescriptor::setStorageMode(StorageMode m) {
  MSLSIM_HEAP_DESCRIPTOR->options = (MSLSIM_HEAP_DESCRIPTOR->options & ~NS::UInteger(0xf0)) | (NS::UInteger(m) << 4);
}
CPUCacheMode HeapDescriptor::cpuCacheMode() const { return CPUCacheMode(MSLSIM_CONST_HEAP_DESCRIPTOR->options & 0xf); }
void HeapDescriptor::setCpuCacheMode(CPUCacheMode m) {
  MSLSIM_HEAP_DESCRIPTOR->options = (MSLSIM_HEAP_DESCRIPTOR->options & ~NS::UInteger(0xf)) | NS::UInteger(m);
}
HazardTrackingMode HeapDescriptor::hazardTrackingMode() const {
  return HazardTrackingMode((MSLSIM_CONST_HEAP_DESCRIPTOR->options >> 8) & 0x3);
}
void HeapDescriptor::setHazardTrackingMode(HazardTrackingMode m) {
  MSLSIM_HEAP_DESCRIPTOR->options = (MSLSIM_HEAP_DESCRIPTOR->options & ~NS::UInteger(0x300)) | (NS::UInteger(m) << 8);
}
ResourceOptions HeapDescriptor::resourceOptions() const { return MSLSIM_CONST_HEAP_DESCRIPTOR->options; }
void HeapDescriptor::setResourceOptions(ResourceOptions o) { MSLSIM_HEAP_DESCRIPTOR->options = o; }
HeapType HeapDescriptor::type() const { return MSLSIM_CONST_HEAP_DESCRIPTOR->type; }
void HeapDescriptor::setType(HeapType t) { MSLSIM_HEAP_DESCRIPTOR->type = t; }
#undef MSLSIM_HEAP_DESCRIPTOR
#undef MSLSIM_CONST_HEAP_DESCRIPTOR

namespace {
HeapObject& heap(const Heap* h) { return *static_cast<HeapObject*>(const_cast<Heap*>(h)); }
}  // namespace

Buffer* Heap::newBuffer(NS::UInteger length, ResourceOptions options) {
  HeapObject& h = heap(this);
  NS::UInteger used = h.used.load();
  do {
    if (length > h.size - used) return nullptr;  // full
  } while (!h.used.compare_exchange_weak(used, used + length));
  auto* b = static_cast<BufferObject*>(h.device->newBuffer(length, options));
  if (!b) {
    h.used -= length;
    return nullptr;
  }
  b->heap.reset(this);
  return b;
}
NS::UInteger Heap::size() const { return heap(this).size; }
NS::UInteger Heap::usedSize() const { return heap(this).used.load(); }
NS::UInteger Heap::currentAllocatedSize() const { return heap(this).size; }
NS::UInteger Heap::maxAvailableSize(NS::UInteger) { return heap(this).size - heap(this).used.load(); }
StorageMode Heap::storageMode() const { return StorageMode((heap(this).options >> 4) & 0xf); }
CPUCacheMode Heap::cpuCacheMode() const { return CPUCacheMode(heap(this).options & 0xf); }
HazardTrackingMode Heap::hazardTrackingMode() const { return HazardTrackingMode((heap(this).options >> 8) & 0x3); }
ResourceOptions Heap::resourceOptions() const { return heap(this).options; }
HeapType Heap::type() const { return heap(this).type; }
Device* Heap::device() const { return heap(this).device; }
NS::String* Heap::label() const { return heap(this).label.get(); }
void Heap::setLabel(const NS::String* label) { heap(this).label.reset(label); }
PurgeableState Heap::setPurgeableState(PurgeableState) { return PurgeableStateNonVolatile; }

// --- Fences, events ------------------------------------------------------------------------------

Device* Fence::device() const { return static_cast<const FenceObject*>(this)->device; }
NS::String* Fence::label() const { return static_cast<const FenceObject*>(this)->label.get(); }
void Fence::setLabel(const NS::String* label) { static_cast<FenceObject*>(this)->label.reset(label); }

Device* Event::device() const { return static_cast<const SharedEventObject*>(this)->device; }
NS::String* Event::label() const { return static_cast<const SharedEventObject*>(this)->label.get(); }
void Event::setLabel(const NS::String* label) { static_cast<SharedEventObject*>(this)->label.reset(label); }

uint64_t SharedEvent::signaledValue() const {
  auto* e = static_cast<const SharedEventObject*>(this);
  std::lock_guard<std::mutex> lock(e->mutex);
  return e->value;
}

void SharedEvent::setSignaledValue(uint64_t value) {
  auto* e = static_cast<SharedEventObject*>(this);
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    e->value = value;
  }
  e->changed.notify_all();
}

bool SharedEvent::waitUntilSignaledValue(uint64_t value, uint64_t timeoutMS) {
  auto* e = static_cast<SharedEventObject*>(this);
  std::unique_lock<std::mutex> lock(e->mutex);
  auto reached = [&] { return e->value >= value; };
  if (timeoutMS == UINT64_MAX) {
    e->changed.wait(lock, reached);
    return true;
  }
  return e->changed.wait_for(lock, std::chrono::milliseconds(timeoutMS), reached);
}

SharedEventHandle* SharedEvent::newSharedEventHandle() {
  auto* h = new SharedEventHandleObject();
  h->event.reset(this);
  return h;
}

void SharedEvent::notifyListener(const SharedEventListener*, uint64_t value, void* context,
                                 void (*invoke)(void*, SharedEvent*, std::uint64_t), void (*destroy)(void*)) {
  retain();
  auto function = std::make_shared<PlainCallback<SharedEvent*, std::uint64_t>>(context, invoke, destroy);
  std::thread([this, value, function] {
    static_cast<SharedEventObject*>(this)->waitFor(value);
    NS::SharedPtr<NS::AutoreleasePool> pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
    (*function)(this, signaledValue());
    release();
  }).detach();
}

SharedEventHandle* SharedEventHandle::alloc() { return new SharedEventHandleObject(); }
SharedEventHandle* SharedEventHandle::init() { return this; }
NS::String* SharedEventHandle::label() const {
  auto& event = static_cast<const SharedEventHandleObject*>(this)->event;
  return event ? event->label() : nullptr;
}

SharedEventListener* SharedEventListener::alloc() { return new SharedEventListenerObject(); }
SharedEventListener* SharedEventListener::init() { return this; }
SharedEventListener* SharedEventListener::sharedListener() {
  static SharedEventListener* listener = new SharedEventListenerObject();
  return listener;
}

// --- Residency sets -----------------------------------------------------------------------------

ResidencySetDescriptor* ResidencySetDescriptor::alloc() { return new ResidencySetDescriptorObject(); }
ResidencySetDescriptor* ResidencySetDescriptor::init() { return this; }
NS::String* ResidencySetDescriptor::label() const { return static_cast<const ResidencySetDescriptorObject*>(this)->label.get(); }
void ResidencySetDescriptor::setLabel(const NS::String* label) {
  static_cast<ResidencySetDescriptorObject*>(this)->label.reset(label);
}
NS::UInteger ResidencySetDescriptor::initialCapacity() const {
  return static_cast<const ResidencySetDescriptorObject*>(this)->initialCapacity;
}
void ResidencySetDescriptor::setInitialCapacity(NS::UInteger c) {
  static_cast<ResidencySetDescriptorObject*>(this)->initialCapacity = c;
}

namespace {
ResidencySetObject& residency(const ResidencySet* r) {
  return *static_cast<ResidencySetObject*>(const_cast<ResidencySet*>(r));
}
}  // namespace

void ResidencySet::addAllocation(const Allocation* a) {
  if (!containsAllocation(a)) residency(this).allocations.push_back(a);
}
void ResidencySet::addAllocations(const Allocation* const allocations[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i) addAllocation(allocations[i]);
}
void ResidencySet::removeAllocation(const Allocation* a) {
  auto& list = residency(this).allocations;
  list.erase(std::remove(list.begin(), list.end(), a), list.end());
}
void ResidencySet::removeAllocations(const Allocation* const allocations[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i) removeAllocation(allocations[i]);
}
void ResidencySet::removeAllAllocations() { residency(this).allocations.clear(); }
bool ResidencySet::containsAllocation(const Allocation* a) {
  auto& list = residency(this).allocations;
  return std::find(list.begin(), list.end(), a) != list.end();
}
NS::UInteger ResidencySet::allocationCount() const { return residency(this).allocations.size(); }
uint64_t ResidencySet::allocatedSize() const {
  uint64_t total = 0;
  for (auto* a : residency(this).allocations) total += a->allocatedSize();
  return total;
}
void ResidencySet::commit() {}
void ResidencySet::requestResidency() {}
void ResidencySet::endResidency() {}
Device* ResidencySet::device() const { return residency(this).device; }
NS::String* ResidencySet::label() const { return residency(this).label.get(); }

// --- Capture --------------------------------------------------------------------------------------

CaptureDescriptor* CaptureDescriptor::alloc() { return new CaptureDescriptorObject(); }
CaptureDescriptor* CaptureDescriptor::init() { return this; }
NS::Object* CaptureDescriptor::captureObject() const { return static_cast<const CaptureDescriptorObject*>(this)->object.get(); }
void CaptureDescriptor::setCaptureObject(NS::Object* o) { static_cast<CaptureDescriptorObject*>(this)->object.reset(o); }
CaptureDestination CaptureDescriptor::destination() const {
  return static_cast<const CaptureDescriptorObject*>(this)->destination;
}
void CaptureDescriptor::setDestination(CaptureDestination d) { static_cast<CaptureDescriptorObject*>(this)->destination = d; }
NS::URL* CaptureDescriptor::outputURL() const { return static_cast<const CaptureDescriptorObject*>(this)->url.get(); }
void CaptureDescriptor::setOutputURL(const NS::URL* url) { static_cast<CaptureDescriptorObject*>(this)->url.reset(url); }

CaptureManager* CaptureManager::sharedCaptureManager() {
  static CaptureManager* manager = new CaptureManagerObject();
  return manager;
}
bool CaptureManager::startCapture(const CaptureDescriptor*, NS::Error** error) {
  fail(error, "MTLCaptureErrorDomain", CaptureErrorNotSupported,
       "GPU capture is not supported by mslsim (there is no GPU to capture; use --trace in the CLI)");
  return false;
}
void CaptureManager::stopCapture() {}
bool CaptureManager::isCapturing() const { return false; }
bool CaptureManager::supportsDestination(CaptureDestination) { return false; }

}  // namespace MTL
