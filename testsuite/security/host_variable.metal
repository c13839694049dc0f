// A kernel reads the host's environment through the C library's `environ` variable.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:uint8:64
// expect-exit: 2
// expect-stderr: error: use of 'environ', a variable declared but not defined in the program
#include <metal_stdlib>
using namespace metal;
extern "C" char** environ;

kernel void k(device char* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  for (int j = 0; j < 64; ++j) out[j] = environ[0][j];
}
