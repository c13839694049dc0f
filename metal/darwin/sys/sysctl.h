// Darwin's sysctlbyname on Linux, for the names Metal programs ask about the machine: hw.memsize
// (bytes of physical memory, 64-bit) and hw.pagesize. Any other name fails with ENOENT, as a name
// the running macOS does not know does (callers fall back to their defaults).
#pragma once

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static inline int sysctlbyname(const char* name, void* oldp, size_t* oldlenp, const void* newp, size_t newlen) {
  (void)newp;
  (void)newlen;
  int64_t value;
  if (strcmp(name, "hw.memsize") == 0)
    value = (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)sysconf(_SC_PAGESIZE);
  else if (strcmp(name, "hw.pagesize") == 0)
    value = (int64_t)sysconf(_SC_PAGESIZE);
  else {
    errno = ENOENT;
    return -1;
  }
  if (!oldlenp) return 0;
  if (!oldp) {
    *oldlenp = sizeof value;
    return 0;
  }
  if (*oldlenp < sizeof value) {
    if (*oldlenp == sizeof(int32_t)) {  // a 32-bit field, as hw.pagesize may be read
      int32_t narrow = (int32_t)value;
      memcpy(oldp, &narrow, sizeof narrow);
      return 0;
    }
    errno = ENOMEM;
    return -1;
  }
  memcpy(oldp, &value, sizeof value);
  *oldlenp = sizeof value;
  return 0;
}
