// Darwin's <mach/vm_page_size.h> on Linux: the page size as the global Darwin programs read.
#pragma once

#include <unistd.h>

#ifdef __cplusplus
inline const unsigned long vm_page_size = static_cast<unsigned long>(sysconf(_SC_PAGESIZE));
#else
#define vm_page_size ((unsigned long)sysconf(_SC_PAGESIZE))
#endif
