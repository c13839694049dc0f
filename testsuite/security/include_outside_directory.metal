// A kernel includes a file above its own directory (this project's CMakeLists.txt).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: error: #include "../../CMakeLists.txt" resolves to
// reject-stderr: cmake_minimum_required
#include "../../CMakeLists.txt"
kernel void k(device float* out [[buffer(0)]]) { out[0] = 1.0f; }
