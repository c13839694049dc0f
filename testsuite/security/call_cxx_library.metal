// A kernel reaches a C++ library function of the host (std::terminate) by declaring it.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: call to 'std::terminate()', which is declared but not defined in the program
#include <metal_stdlib>
namespace std { [[noreturn]] void terminate() noexcept; }

kernel void k(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  if (i == 7) std::terminate();
  out[0] = 1.0f;
}
