#include "/etc/passwd"
#include "missing.h"
kernel void k() {}
