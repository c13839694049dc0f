// Foundation for mslsim's metal-cpp-compatible API: the `NS::` classes that Apple's metal-cpp
// declares and Metal programs use (objects with reference counting, autorelease pools, SharedPtr,
// strings, errors, arrays, dictionaries, URLs), with metal-cpp's names and signatures, implemented
// natively in C++ (there is no Objective-C runtime underneath).
//
// Differences from metal-cpp that a program can see, all deliberate:
// * Objects are C++ objects with a virtual destructor; as in metal-cpp they exist only behind
//   pointers, derive along one chain each (so a Buffer* and the Resource* it is are the same
//   address), and are never constructed, copied or deleted by the program.
// * Calling a method on a null pointer is not the no-op it is in Objective-C: SharedPtr checks
//   for null itself (metal-cpp's relies on nil messaging), and programs check before release().
// * Methods taking Objective-C blocks are left out; every one MLX and typical programs use has the
//   std::function overload metal-cpp also declares.
// * `NS_PRIVATE_IMPLEMENTATION` and friends are accepted and change nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace NS {

namespace detail {
// A std::function handed to the library as a pointer and two plain functions: the library and the
// program may be built with different C++ standard libraries (libstdc++ and libc++, as MLX is), so
// no std:: type crosses the API. The library calls `invoke`, then `destroy` once it is done.
template <class F> struct ErasedFunction;
template <class R, class... A>
struct ErasedFunction<std::function<R(A...)>> {
  using Invoke = R (*)(void*, A...);
  using Destroy = void (*)(void*);
  static void* wrap(const std::function<R(A...)>& f) { return f ? new std::function<R(A...)>(f) : nullptr; }
  static R invoke(void* f, A... a) { return (*static_cast<std::function<R(A...)>*>(f))(a...); }
  static void destroy(void* f) { delete static_cast<std::function<R(A...)>*>(f); }
};
}  // namespace detail

using Integer = std::intptr_t;
using UInteger = std::uintptr_t;
// Programs mix NS::UInteger and size_t freely (std::min(size_t, pipeline->maxTotal...())).
static_assert(std::is_same<UInteger, std::size_t>::value, "NS::UInteger must be size_t");
constexpr Integer IntegerMax = INTPTR_MAX;
constexpr Integer IntegerMin = INTPTR_MIN;
constexpr UInteger UIntegerMax = UINTPTR_MAX;
constexpr Integer NotFound = IntegerMax;
using TimeInterval = double;
using unichar = unsigned short;

enum ComparisonResult : Integer { OrderedAscending = -1, OrderedSame = 0, OrderedDescending = 1 };

class String;
class Array;
class Dictionary;
class Object;
namespace detail {
// Copying's access to Object::copyObject (protected) for any class.
Object* copyOf(const Object* object);
}  // namespace detail

// The root of every object: a reference count, and the few messages every object answers.
class Object {
 public:
  Object* retain();
  void release();  // deletes the object when the last reference goes
  Object* autorelease();  // released when the innermost AutoreleasePool of this thread drains
  UInteger retainCount() const;

  UInteger hash() const;
  bool isEqual(const Object* other) const;
  String* description() const;
  String* debugDescription() const;

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

 protected:
  Object() = default;
  virtual ~Object();

  // What isEqual, hash, description and copy mean for a class (identity, its address, and the
  // object itself retained, unless the class says otherwise). No standard-library types cross
  // this boundary: a program built with libc++ uses a library built with libstdc++.
  virtual bool equals(const Object& other) const;
  virtual UInteger hashValue() const;
  virtual String* describe() const;  // autoreleased
  virtual Object* copyObject() const;
  friend Object* detail::copyOf(const Object* object);

 private:
  std::atomic<UInteger> references_{1};
};

// metal-cpp's CRTP layer: the same reference-counting messages, typed as the class.
template <class C, class Base = Object>
class Referencing : public Base {
 public:
  C* retain() { return static_cast<C*>(Object::retain()); }
  void release() { Object::release(); }
  C* autorelease() { return static_cast<C*>(Object::autorelease()); }
  UInteger retainCount() const { return Object::retainCount(); }

 protected:
  Referencing() = default;
};

template <class C, class Base = Object>
class Copying : public Referencing<C, Base> {
 public:
  C* copy() const { return static_cast<C*>(detail::copyOf(this)); }  // +1

 protected:
  Copying() = default;
};

template <class C, class Base = Object>
class SecureCoding : public Referencing<C, Base> {
 protected:
  SecureCoding() = default;
};

// --- SharedPtr: owning pointer over retain/release --------------------------------------------

template <class T>
class SharedPtr {
 public:
  SharedPtr() = default;
  SharedPtr(std::nullptr_t) noexcept {}
  ~SharedPtr() { reset(); }

  SharedPtr(const SharedPtr& other) noexcept : object_(other.object_) { retainObject(); }
  template <class U, class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  SharedPtr(const SharedPtr<U>& other) noexcept : object_(other.get()) {
    retainObject();
  }
  SharedPtr(SharedPtr&& other) noexcept : object_(other.detach()) {}
  template <class U, class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  SharedPtr(SharedPtr<U>&& other) noexcept : object_(other.detach()) {}

  SharedPtr& operator=(const SharedPtr& other) {
    SharedPtr(other).swap(*this);
    return *this;
  }
  template <class U, class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  SharedPtr& operator=(const SharedPtr<U>& other) {
    SharedPtr(other).swap(*this);
    return *this;
  }
  SharedPtr& operator=(SharedPtr&& other) {
    SharedPtr(std::move(other)).swap(*this);
    return *this;
  }
  template <class U, class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  SharedPtr& operator=(SharedPtr<U>&& other) {
    SharedPtr(std::move(other)).swap(*this);
    return *this;
  }

  T* get() const { return object_; }
  T* operator->() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }
  void reset() {
    if (object_) static_cast<Object*>(object_)->release();
    object_ = nullptr;
  }
  T* detach() {
    T* object = object_;
    object_ = nullptr;
    return object;
  }

 private:
  template <class U> friend SharedPtr<U> TransferPtr(U* object);
  template <class U> friend SharedPtr<U> RetainPtr(U* object);
  void retainObject() {
    if (object_) static_cast<Object*>(object_)->retain();
  }
  void swap(SharedPtr& other) noexcept { std::swap(object_, other.object_); }
  T* object_ = nullptr;
};

// Adopts a +1 reference (from alloc/new/copy/Create).
template <class U>
SharedPtr<U> TransferPtr(U* object) {
  SharedPtr<U> p;
  p.object_ = object;
  return p;
}
// Takes a reference of its own to a +0 object (a getter's result, an autoreleased object).
template <class U>
SharedPtr<U> RetainPtr(U* object) {
  SharedPtr<U> p;
  p.object_ = object;
  p.retainObject();
  return p;
}

template <class A, class B>
bool operator==(const SharedPtr<A>& a, const SharedPtr<B>& b) {
  return a.get() == b.get();
}
template <class A, class B>
bool operator!=(const SharedPtr<A>& a, const SharedPtr<B>& b) {
  return a.get() != b.get();
}

// --- Autorelease pools -------------------------------------------------------------------------

// Pools nest per thread: alloc()->init() pushes one, drain() (or release()) pops it and releases
// what was autoreleased into it. Objects autoreleased on a thread with no pool are released when
// the thread ends.
class AutoreleasePool : public Object {
 public:
  static AutoreleasePool* alloc();
  AutoreleasePool* init();
  void drain();
  void addObject(Object* object);
  static void showPools();

 protected:
  AutoreleasePool() = default;
};

// --- Values ------------------------------------------------------------------------------------

struct Range {
  Range(UInteger loc, UInteger len) : location(loc), length(len) {}
  static Range Make(UInteger loc, UInteger len) { return Range(loc, len); }
  bool Equal(const Range& other) const { return location == other.location && length == other.length; }
  bool LocationInRange(UInteger loc) const { return loc >= location && loc - location < length; }
  UInteger Max() const { return location + length; }
  UInteger location;
  UInteger length;
};

// --- Strings -----------------------------------------------------------------------------------

using StringEncoding = UInteger;
enum : StringEncoding {
  ASCIIStringEncoding = 1,
  NEXTSTEPStringEncoding = 2,
  JapaneseEUCStringEncoding = 3,
  UTF8StringEncoding = 4,
  ISOLatin1StringEncoding = 5,
  SymbolStringEncoding = 6,
  NonLossyASCIIStringEncoding = 7,
  ShiftJISStringEncoding = 8,
  ISOLatin2StringEncoding = 9,
  UnicodeStringEncoding = 10,
  WindowsCP1251StringEncoding = 11,
  WindowsCP1252StringEncoding = 12,
  WindowsCP1253StringEncoding = 13,
  WindowsCP1254StringEncoding = 14,
  WindowsCP1250StringEncoding = 15,
  ISO2022JPStringEncoding = 21,
  MacOSRomanStringEncoding = 30,
  UTF16StringEncoding = UnicodeStringEncoding,
  UTF16BigEndianStringEncoding = 0x90000100,
  UTF16LittleEndianStringEncoding = 0x94000100,
  UTF32StringEncoding = 0x8c000100,
  UTF32BigEndianStringEncoding = 0x98000100,
  UTF32LittleEndianStringEncoding = 0x9c000100,
};

using StringCompareOptions = UInteger;
enum : StringCompareOptions {
  CaseInsensitiveSearch = 1,
  LiteralSearch = 2,
  BackwardsSearch = 4,
  AnchoredSearch = 8,
  NumericSearch = 64,
  DiacriticInsensitiveSearch = 128,
  WidthInsensitiveSearch = 256,
  ForcedOrderingSearch = 512,
  RegularExpressionSearch = 1024,
};

// Immutable text. UTF-8 (checked: invalid bytes give nil) and ASCII (lenient, as Foundation is: bytes
// past 127 are kept) are supported; other encodings give nil.
class String : public Copying<String> {
 public:
  static String* string();                                         // +0
  static String* string(const String* other);                      // +0
  static String* string(const char* cstring, StringEncoding encoding);  // +0; nil for invalid bytes
  static String* alloc();
  String* init();
  String* init(const String* other);
  String* init(const char* cstring, StringEncoding encoding);
  String* init(void* bytes, UInteger length, StringEncoding encoding, bool freeBuffer);

  const char* utf8String() const;
  const char* cString(StringEncoding encoding) const;
  UInteger length() const;  // in UTF-16 code units
  unichar character(UInteger index) const;
  UInteger maximumLengthOfBytes(StringEncoding encoding) const;
  UInteger lengthOfBytes(StringEncoding encoding) const;
  bool isEqualToString(const String* other) const;
  Range rangeOfString(const String* other, StringCompareOptions options) const;
  const char* fileSystemRepresentation() const;
  String* stringByAppendingString(const String* other) const;
  ComparisonResult caseInsensitiveCompare(const String* other) const;

 protected:
  String() = default;
};

namespace detail {
// MTLSTR's string: one immortal object per distinct literal.
String* constantString(const char* literal);
}  // namespace detail

// --- Collections -------------------------------------------------------------------------------

class Array : public Copying<Array> {
 public:
  static Array* array();                                              // +0
  static Array* array(const Object* object);                          // +0
  static Array* array(const Object* const* objects, UInteger count);  // +0
  static Array* alloc();
  Array* init();
  Array* init(const Object* const* objects, UInteger count);

  template <class T = Object>
  T* object(UInteger index) const {
    return static_cast<T*>(objectAtIndex(index));
  }
  UInteger count() const;

 protected:
  Array() = default;

 private:
  Object* objectAtIndex(UInteger index) const;  // throws std::out_of_range past the end
};

class Dictionary : public Copying<Dictionary> {
 public:
  static Dictionary* dictionary();                                             // +0
  static Dictionary* dictionary(const Object* object, const Object* key);      // +0
  static Dictionary* dictionary(const Object* const* objects, const Object* const* keys, UInteger count);
  static Dictionary* alloc();
  Dictionary* init();
  Dictionary* init(const Object* const* objects, const Object* const* keys, UInteger count);

  template <class T = Object>
  T* object(const Object* key) const {
    return static_cast<T*>(objectForKey(key));
  }
  UInteger count() const;

 protected:
  Dictionary() = default;

 private:
  Object* objectForKey(const Object* key) const;  // nil when absent
};

// --- Errors ------------------------------------------------------------------------------------

using ErrorDomain = String*;
using ErrorUserInfoKey = String*;
extern const ErrorDomain CocoaErrorDomain;
extern const ErrorDomain POSIXErrorDomain;
extern const ErrorDomain OSStatusErrorDomain;
extern const ErrorDomain MachErrorDomain;
extern const ErrorUserInfoKey UnderlyingErrorKey;
extern const ErrorUserInfoKey LocalizedDescriptionKey;
extern const ErrorUserInfoKey LocalizedFailureReasonErrorKey;
extern const ErrorUserInfoKey LocalizedRecoverySuggestionErrorKey;
extern const ErrorUserInfoKey FilePathErrorKey;

class Error : public Copying<Error> {
 public:
  static Error* error(ErrorDomain domain, Integer code, Dictionary* userInfo);  // +0
  static Error* alloc();
  Error* init();
  Error* init(ErrorDomain domain, Integer code, Dictionary* userInfo);

  Integer code() const;
  ErrorDomain domain() const;
  Dictionary* userInfo() const;
  // userInfo's LocalizedDescriptionKey, else a sentence naming the domain and code.
  String* localizedDescription() const;
  Array* localizedRecoveryOptions() const;
  String* localizedRecoverySuggestion() const;
  String* localizedFailureReason() const;

 protected:
  Error() = default;
};

// --- URLs --------------------------------------------------------------------------------------

class URL : public Copying<URL> {
 public:
  static URL* fileURLWithPath(const String* path);  // +0
  static URL* alloc();
  URL* init();
  URL* init(const String* string);
  URL* initFileURLWithPath(const String* path);
  const char* fileSystemRepresentation() const;

 protected:
  URL() = default;
};

}  // namespace NS

// metal-cpp's string literal macro: an immortal string, as Objective-C's constant strings are.
#define MTLSTR(literal) ::NS::detail::constantString("" literal "")
#define NSSTR(literal) MTLSTR(literal)
