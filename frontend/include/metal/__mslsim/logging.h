// <metal_logging>: metal::os_log (Metal 3.2). mslsim has no log stream, so every call is accepted
// and dropped; the arguments are still evaluated by the caller, as on the GPU.
#pragma once
#include "base.h"

#define __MSLSIM_HAVE_OS_LOG 1

namespace metal {
enum os_log_type : uchar {
  os_log_type_default = 0x00,
  os_log_type_info = 0x01,
  os_log_type_debug = 0x02,
  os_log_type_error = 0x10,
  os_log_type_fault = 0x11,
};
struct os_log {
  constexpr os_log() {}
  constexpr os_log(const char*, const char*) {}
  template <class... A> void log_with_type(os_log_type, const char*, const A&...) const {}
  template <class... A> void log(const char*, const A&...) const {}
  template <class... A> void log_debug(const char*, const A&...) const {}
  template <class... A> void log_info(const char*, const A&...) const {}
  template <class... A> void log_error(const char*, const A&...) const {}
  template <class... A> void log_fault(const char*, const A&...) const {}
};
inline constexpr os_log os_log_default{};
}  // namespace metal
