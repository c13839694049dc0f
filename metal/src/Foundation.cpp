// NS:: objects: reference counts, autorelease pools, strings, collections, errors, URLs.
#include "Objects.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <unordered_map>

namespace NS {

using namespace mslsim::metal;

// --- Object -------------------------------------------------------------------------------------

namespace {

// The pools of one thread, innermost last; what is autoreleased with none is released when the
// thread ends (Objective-C would leak it and warn).
struct ThreadPools {
  std::vector<AutoreleasePoolObject*> stack;
  std::vector<Object*> orphans;
  ~ThreadPools() {
    // Releasing may autorelease more (into `orphans` again): keep going until nothing is left.
    std::vector<Object*> batch;
    while (!(batch = std::exchange(orphans, {})).empty())
      for (Object* o : batch) o->release();
  }
};

// The state lives behind a trivially destructible pointer: other thread_local objects (MLX's
// per-thread command encoders) use pools in their destructors, which may run after this thread's
// pool state was torn down; they then get a fresh state (left to leak) instead of a destroyed one.
thread_local ThreadPools* tPoolState = nullptr;
struct ThreadPoolsOwner {
  ~ThreadPoolsOwner() {
    delete std::exchange(tPoolState, nullptr);
  }
};
thread_local ThreadPoolsOwner tPoolOwner;
ThreadPools& pools() {
  if (!tPoolState) {
    tPoolState = new ThreadPools();
    (void)&tPoolOwner;  // registers the owner's destructor for this thread
  }
  return *tPoolState;
}

}  // namespace

Object::~Object() = default;

Object* Object::retain() { MSLSIM_NIL_ANSWERS(nullptr);
  references_.fetch_add(1, std::memory_order_relaxed);
  return this;
}

void Object::release() { MSLSIM_NIL_ANSWERS();
  if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

Object* Object::autorelease() { MSLSIM_NIL_ANSWERS(nullptr);
  if (pools().stack.empty())
    pools().orphans.push_back(this);
  else
    pools().stack.back()->objects.push_back(this);
  return this;
}

UInteger Object::retainCount() const { MSLSIM_NIL_ANSWERS(0); return references_.load(std::memory_order_relaxed); }
UInteger Object::hash() const { MSLSIM_NIL_ANSWERS(0); return hashValue(); }
bool Object::isEqual(const Object* other) const { MSLSIM_NIL_ANSWERS(false); return other && equals(*other); }
String* Object::description() const { MSLSIM_NIL_ANSWERS(nullptr); return describe(); }
String* Object::debugDescription() const { return describe(); }

bool Object::equals(const Object& other) const { return this == &other; }
UInteger Object::hashValue() const { return reinterpret_cast<UInteger>(this); }
String* Object::describe() const {
  char text[64];
  std::snprintf(text, sizeof text, "<object %p>", static_cast<const void*>(this));
  return makeString(text);
}
Object* Object::copyObject() const { return const_cast<Object*>(this)->retain(); }

Object* detail::copyOf(const Object* object) { return object->copyObject(); }

// --- AutoreleasePool ----------------------------------------------------------------------------

AutoreleasePool* AutoreleasePool::alloc() { return new AutoreleasePoolObject(); }

AutoreleasePool* AutoreleasePool::init() {
  pools().stack.push_back(static_cast<AutoreleasePoolObject*>(this));
  return this;
}

void AutoreleasePool::drain() { release(); }
void AutoreleasePool::addObject(Object* object) { static_cast<AutoreleasePoolObject*>(this)->objects.push_back(object); }

void AutoreleasePool::showPools() {
  std::cerr << "autorelease pools of this thread: " << pools().stack.size() << "\n";
  for (size_t i = 0; i < pools().stack.size(); ++i)
    std::cerr << "  pool " << i << ": " << pools().stack[i]->objects.size() << " objects\n";
}

}  // namespace NS

namespace mslsim::metal {

namespace {
// Releases what was autoreleased into `pool`; releasing may autorelease more into it.
void drainObjects(AutoreleasePoolObject* pool) {
  std::vector<NS::Object*> objects;
  while (!(objects = std::exchange(pool->objects, {})).empty())
    for (NS::Object* o : objects) o->release();
}
}  // namespace

AutoreleasePoolObject::~AutoreleasePoolObject() {
  // Pools still pushed inside this one are drained and popped first, as Cocoa does (each is
  // deleted when its own owner releases it). A pool released on another thread than the one that
  // pushed it only drains itself.
  auto& stack = NS::pools().stack;
  if (std::find(stack.begin(), stack.end(), this) != stack.end()) {
    while (stack.back() != this) {
      drainObjects(stack.back());
      stack.pop_back();
    }
    stack.pop_back();
  }
  drainObjects(this);
}

// --- Strings --------------------------------------------------------------------------------------

NS::String* makeString(const std::string& text) {
  auto* s = new StringObject();
  s->text = text;
  return autoreleased<NS::String>(s);
}

const std::string& textOf(const NS::String* string) {
  static const std::string empty;
  return string ? static_cast<const StringObject*>(string)->text : empty;
}

bool StringObject::equals(const NS::Object& other) const {
  auto* s = dynamic_cast<const StringObject*>(&other);
  return s && s->text == text;
}
NS::UInteger StringObject::hashValue() const { return std::hash<std::string>()(text); }
NS::String* StringObject::describe() const { return const_cast<StringObject*>(this); }

NS::Error* makeError(const char* domain, NS::Integer code, const std::string& description) {
  auto* e = new ErrorObject();
  e->domain.reset(makeString(domain));
  e->code = code;
  const NS::Object* key = NS::LocalizedDescriptionKey;
  const NS::Object* value = makeString(description);
  e->userInfo.reset(NS::Dictionary::dictionary(&value, &key, 1));
  return autoreleased<NS::Error>(e);
}

std::nullptr_t fail(NS::Error** out, const char* domain, NS::Integer code, const std::string& description) {
  if (out) *out = makeError(domain, code, description);
  return nullptr;
}

namespace {
bool validUtf8(const char* s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    size_t extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 9;
    if (extra == 9 || (extra && i + extra >= n)) return false;
    for (size_t k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += extra + 1;
  }
  return true;
}
bool encodable(const char* s, size_t n, NS::StringEncoding encoding) {
  // Foundation reads "ASCII" leniently: MLX hands its kernel sources, whose comments hold "©",
  // to stringWithCString:encoding:NSASCIIStringEncoding, and they compile on a Mac. The bytes are
  // kept as they are.
  if (encoding == NS::ASCIIStringEncoding) return true;
  if (encoding == NS::UTF8StringEncoding) return validUtf8(s, n);
  return false;  // other encodings are not supported: nil, as for bytes invalid in the encoding
}
}  // namespace

}  // namespace mslsim::metal

namespace NS {

String* String::string() { return makeString(""); }
String* String::string(const String* other) { return makeString(textOf(other)); }
String* String::string(const char* cstring, StringEncoding encoding) {
  if (!cstring || !encodable(cstring, std::strlen(cstring), encoding)) return nullptr;
  return makeString(cstring);
}
String* String::alloc() { return new StringObject(); }
String* String::init() { return this; }
String* String::init(const String* other) {
  static_cast<StringObject*>(this)->text = textOf(other);
  return this;
}
String* String::init(const char* cstring, StringEncoding encoding) {
  if (!cstring || !encodable(cstring, std::strlen(cstring), encoding)) {
    release();
    return nullptr;
  }
  static_cast<StringObject*>(this)->text = cstring;
  return this;
}
String* String::init(void* bytes, UInteger length, StringEncoding encoding, bool freeBuffer) {
  const char* chars = static_cast<const char*>(bytes);
  bool ok = encodable(chars, length, encoding);
  if (ok) static_cast<StringObject*>(this)->text.assign(chars, length);
  if (freeBuffer) std::free(bytes);
  if (!ok) {
    release();
    return nullptr;
  }
  return this;
}

const char* String::utf8String() const { MSLSIM_NIL_ANSWERS(nullptr); return static_cast<const StringObject*>(this)->text.c_str(); }
const char* String::cString(StringEncoding encoding) const {
  const std::string& t = textOf(this);
  return encodable(t.data(), t.size(), encoding) ? t.c_str() : nullptr;
}
const char* String::fileSystemRepresentation() const { return utf8String(); }

UInteger String::length() const { MSLSIM_NIL_ANSWERS(0);
  UInteger units = 0;
  for (unsigned char c : textOf(this))
    if ((c >> 6) != 2) units += (c >> 3) == 30 ? 2 : 1;  // 4-byte sequences are surrogate pairs
  return units;
}

unichar String::character(UInteger index) const {
  const std::string& t = textOf(this);
  UInteger unit = 0;
  for (size_t i = 0; i < t.size();) {
    unsigned char c = t[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
    for (size_t k = 1; k < n && i + k < t.size(); ++k) cp = (cp << 6) | (t[i + k] & 0x3f);
    if (cp >= 0x10000) {
      if (unit == index) return unichar(0xd800 + ((cp - 0x10000) >> 10));
      if (unit + 1 == index) return unichar(0xdc00 + ((cp - 0x10000) & 0x3ff));
      unit += 2;
    } else {
      if (unit == index) return unichar(cp);
      unit += 1;
    }
    i += n;
  }
  throw std::out_of_range("NS::String::character: index " + std::to_string(index) + " is past the end");
}

UInteger String::maximumLengthOfBytes(StringEncoding encoding) const { return length() * 3; }
UInteger String::lengthOfBytes(StringEncoding encoding) const {
  const std::string& t = textOf(this);
  return encodable(t.data(), t.size(), encoding) ? t.size() : 0;
}
bool String::isEqualToString(const String* other) const { return other && textOf(this) == textOf(other); }

Range String::rangeOfString(const String* other, StringCompareOptions options) const {
  std::string haystack = textOf(this), needle = textOf(other);
  if (options & CaseInsensitiveSearch) {
    for (auto& c : haystack) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : needle) c = char(std::tolower(static_cast<unsigned char>(c)));
  }
  size_t at = options & BackwardsSearch ? haystack.rfind(needle) : haystack.find(needle);
  if (at == std::string::npos || (options & AnchoredSearch && at != 0)) return Range(UInteger(NotFound), 0);
  return Range(at, needle.size());  // byte offsets: equal to UTF-16 units for ASCII text
}

String* String::stringByAppendingString(const String* other) const { return makeString(textOf(this) + textOf(other)); }

ComparisonResult String::caseInsensitiveCompare(const String* other) const {
  std::string a = textOf(this), b = textOf(other);
  for (auto* s : {&a, &b})
    for (auto& c : *s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return a < b ? OrderedAscending : a == b ? OrderedSame : OrderedDescending;
}

String* detail::constantString(const char* literal) {
  static std::mutex mutex;
  static std::unordered_map<std::string, StringObject*> strings;  // never released
  std::lock_guard<std::mutex> lock(mutex);
  StringObject*& s = strings[literal];
  if (!s) {
    s = new StringObject();
    s->text = literal;
  }
  return s;
}

// --- Arrays and dictionaries -------------------------------------------------------------------

Array* Array::array() { return autoreleased(alloc()->init()); }
Array* Array::array(const Object* object) { return autoreleased(alloc()->init(&object, 1)); }
Array* Array::array(const Object* const* objects, UInteger count) { return autoreleased(alloc()->init(objects, count)); }
Array* Array::alloc() { return new ArrayObject(); }
Array* Array::init() { return this; }
Array* Array::init(const Object* const* objects, UInteger count) {
  auto* a = static_cast<ArrayObject*>(this);
  for (UInteger i = 0; i < count; ++i) a->items.push_back(retained(const_cast<Object*>(objects[i])));
  return this;
}
UInteger Array::count() const { MSLSIM_NIL_ANSWERS(0); return static_cast<const ArrayObject*>(this)->items.size(); }
Object* Array::objectAtIndex(UInteger index) const {
  auto& items = static_cast<const ArrayObject*>(this)->items;
  if (index >= items.size())
    throw std::out_of_range("NS::Array::object: index " + std::to_string(index) + " beyond bounds [0 .. " +
                            std::to_string(items.size()) + ")");
  return items[index];
}

Dictionary* Dictionary::dictionary() { return autoreleased(alloc()->init()); }
Dictionary* Dictionary::dictionary(const Object* object, const Object* key) {
  return autoreleased(alloc()->init(&object, &key, 1));
}
Dictionary* Dictionary::dictionary(const Object* const* objects, const Object* const* keys, UInteger count) {
  return autoreleased(alloc()->init(objects, keys, count));
}
Dictionary* Dictionary::alloc() { return new DictionaryObject(); }
Dictionary* Dictionary::init() { return this; }
Dictionary* Dictionary::init(const Object* const* objects, const Object* const* keys, UInteger count) {
  auto* d = static_cast<DictionaryObject*>(this);
  for (UInteger i = 0; i < count; ++i)
    d->entries.emplace_back(retained(const_cast<Object*>(keys[i])), retained(const_cast<Object*>(objects[i])));
  return this;
}
UInteger Dictionary::count() const { return static_cast<const DictionaryObject*>(this)->entries.size(); }
Object* Dictionary::objectForKey(const Object* key) const {
  for (auto& [k, v] : static_cast<const DictionaryObject*>(this)->entries)
    if (k->isEqual(key)) return v;
  return nullptr;
}

// --- Errors and URLs ---------------------------------------------------------------------------

const ErrorDomain CocoaErrorDomain = MTLSTR("NSCocoaErrorDomain");
const ErrorDomain POSIXErrorDomain = MTLSTR("NSPOSIXErrorDomain");
const ErrorDomain OSStatusErrorDomain = MTLSTR("NSOSStatusErrorDomain");
const ErrorDomain MachErrorDomain = MTLSTR("NSMachErrorDomain");
const ErrorUserInfoKey UnderlyingErrorKey = MTLSTR("NSUnderlyingError");
const ErrorUserInfoKey LocalizedDescriptionKey = MTLSTR("NSLocalizedDescription");
const ErrorUserInfoKey LocalizedFailureReasonErrorKey = MTLSTR("NSLocalizedFailureReason");
const ErrorUserInfoKey LocalizedRecoverySuggestionErrorKey = MTLSTR("NSLocalizedRecoverySuggestion");
const ErrorUserInfoKey FilePathErrorKey = MTLSTR("NSFilePath");

Error* Error::error(ErrorDomain domain, Integer code, Dictionary* userInfo) {
  return autoreleased(alloc()->init(domain, code, userInfo));
}
Error* Error::alloc() { return new ErrorObject(); }
Error* Error::init() { return this; }
Error* Error::init(ErrorDomain domain, Integer code, Dictionary* userInfo) {
  auto* e = static_cast<ErrorObject*>(this);
  e->domain.reset(domain);
  e->code = code;
  e->userInfo.reset(userInfo);
  return this;
}
Integer Error::code() const { MSLSIM_NIL_ANSWERS(0); return static_cast<const ErrorObject*>(this)->code; }
ErrorDomain Error::domain() const { return static_cast<const ErrorObject*>(this)->domain.get(); }
Dictionary* Error::userInfo() const { return static_cast<const ErrorObject*>(this)->userInfo.get(); }
String* Error::localizedDescription() const { MSLSIM_NIL_ANSWERS(nullptr); return describe(); }
Array* Error::localizedRecoveryOptions() const { return nullptr; }
String* Error::localizedRecoverySuggestion() const {
  Dictionary* info = userInfo();
  return info ? info->object<String>(LocalizedRecoverySuggestionErrorKey) : nullptr;
}
String* Error::localizedFailureReason() const {
  Dictionary* info = userInfo();
  return info ? info->object<String>(LocalizedFailureReasonErrorKey) : nullptr;
}

URL* URL::fileURLWithPath(const String* path) { return autoreleased(alloc()->initFileURLWithPath(path)); }
URL* URL::alloc() { return new URLObject(); }
URL* URL::init() { return this; }
URL* URL::init(const String* string) {
  std::string text = textOf(string);
  if (text.rfind("file://", 0) == 0) text = text.substr(7);
  static_cast<URLObject*>(this)->path = text;
  return this;
}
URL* URL::initFileURLWithPath(const String* path) {
  static_cast<URLObject*>(this)->path = textOf(path);
  return this;
}
const char* URL::fileSystemRepresentation() const { return static_cast<const URLObject*>(this)->path.c_str(); }

}  // namespace NS

namespace mslsim::metal {

NS::String* ErrorObject::describe() const {
  if (userInfo)
    if (auto* text = userInfo->object<NS::String>(NS::LocalizedDescriptionKey)) return text;
  return makeString("The operation couldn't be completed. (" + textOf(domain.get()) + " error " +
                    std::to_string(code) + ".)");
}

ArrayObject::~ArrayObject() {
  for (auto* o : items) o->release();
}
NS::Object* ArrayObject::copyObject() const {
  auto* a = new ArrayObject();
  for (auto* o : items) a->items.push_back(retained(o));
  return a;
}

DictionaryObject::~DictionaryObject() {
  for (auto& [k, v] : entries) {
    k->release();
    v->release();
  }
}
NS::Object* DictionaryObject::copyObject() const {
  auto* d = new DictionaryObject();
  for (auto& [k, v] : entries) d->entries.emplace_back(retained(k), retained(v));
  return d;
}

}  // namespace mslsim::metal
