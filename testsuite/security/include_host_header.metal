// A kernel includes a header of the host's C library.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: 'stdio.h' file not found
// expect-stderr: host headers (C and C++ libraries, the system's) are not available to kernels
#include <stdio.h>
kernel void k(device float* out [[buffer(0)]]) { out[0] = 1.0f; }
