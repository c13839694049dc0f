// MSL atomics. Device and threadgroup memory are ordinary memory here and threadgroups run in
// parallel on OS threads, so these are real __atomic operations on the object's storage.
// atomic<T> has exactly the size of T because MLX binds plain buffers as `device atomic<float>*`.
#pragma once
#include "base.h"
#include "simd.h"

namespace metal {
// memory_order and thread_scope are in base.h: Metal knows them without an include.

template <class T> struct atomic {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomic<T>: unsupported size");
  T __v;
};
static_assert(sizeof(atomic<float>) == sizeof(float), "atomic layout");
typedef atomic<int> atomic_int;
typedef atomic<uint> atomic_uint;
typedef atomic<bool> atomic_bool;
typedef atomic<float> atomic_float;
typedef atomic<ulong> atomic_ulong;
typedef atomic<long> atomic_long;

// The value argument is not deduced, so `atomic_fetch_add_explicit(p, 1, ...)` works on atomic_uint.
template <class T> METAL_FUNC T atomic_load_explicit(const volatile atomic<T>* obj, memory_order o) {
  T r;
  __atomic_load(&obj->__v, &r, o);
  return r;
}
template <class T> METAL_FUNC void atomic_store_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  __atomic_store(&obj->__v, &v, o);
}
template <class T> METAL_FUNC T atomic_exchange_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  T r;
  __atomic_exchange(&obj->__v, &v, &r, o);
  return r;
}
// Compares bit patterns, as C++ does and the MSL specification's wording implies, so for floats
// -0.0 and +0.0 differ and a NaN matches itself. MLX's comments suggest Apple's hardware compares
// floats by value; mslsim does not model that (docs/differences.md).
template <class T>
METAL_FUNC bool atomic_compare_exchange_weak_explicit(volatile atomic<T>* obj, thread T* expected,
                                                      typename type_identity<T>::type desired, memory_order succ,
                                                      memory_order fail) {
  return __atomic_compare_exchange(&obj->__v, expected, &desired, true, succ,
                                   fail == memory_order_release || fail == memory_order_acq_rel ? memory_order_relaxed : fail);
}
template <class T>
METAL_FUNC bool atomic_compare_exchange_strong_explicit(volatile atomic<T>* obj, thread T* expected,
                                                        typename type_identity<T>::type desired, memory_order succ,
                                                        memory_order fail) {
  return __atomic_compare_exchange(&obj->__v, expected, &desired, false, succ,
                                   fail == memory_order_release || fail == memory_order_acq_rel ? memory_order_relaxed : fail);
}
template <class T, class Op> METAL_FUNC T __atomic_cas_loop(volatile atomic<T>* obj, Op op, memory_order o) {
  T old;
  __atomic_load(&obj->__v, &old, __ATOMIC_RELAXED);
  T nv = op(old);
  while (!__atomic_compare_exchange(&obj->__v, &old, &nv, true, o, __ATOMIC_RELAXED)) nv = op(old);
  return old;
}
template <class T> METAL_FUNC T atomic_fetch_add_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  if constexpr (__is_floating_point(T)) return __atomic_cas_loop(obj, [v](T a) { return T(a + v); }, o);
  else return __atomic_fetch_add(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_sub_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  if constexpr (__is_floating_point(T)) return __atomic_cas_loop(obj, [v](T a) { return T(a - v); }, o);
  else return __atomic_fetch_sub(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_and_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  return __atomic_fetch_and(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_or_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  return __atomic_fetch_or(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_xor_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  return __atomic_fetch_xor(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_min_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  return __atomic_fetch_min(&obj->__v, v, o);
}
template <class T> METAL_FUNC T atomic_fetch_max_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  return __atomic_fetch_max(&obj->__v, v, o);
}
// 64-bit min/max exist only in this void form (atomic_ulong, Metal 2.4+).
template <class T> METAL_FUNC void atomic_min_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  __atomic_fetch_min(&obj->__v, v, o);
}
template <class T> METAL_FUNC void atomic_max_explicit(volatile atomic<T>* obj, typename type_identity<T>::type v, memory_order o) {
  __atomic_fetch_max(&obj->__v, v, o);
}
// Non-explicit forms (seq_cst in C++, relaxed in MSL: the only order MSL has for these).
template <class T> METAL_FUNC T atomic_load(const volatile atomic<T>* obj) { return atomic_load_explicit(obj, memory_order_relaxed); }
template <class T> METAL_FUNC void atomic_store(volatile atomic<T>* obj, typename type_identity<T>::type v) { atomic_store_explicit(obj, v, memory_order_relaxed); }

inline void atomic_thread_fence(mem_flags, memory_order o, thread_scope = thread_scope_device) {
  if (o != memory_order_relaxed) __atomic_thread_fence(o);
}
}  // namespace metal
