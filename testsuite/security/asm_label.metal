// A kernel reaches a hook under another name, with an asm label: refused, as MSL has no way to
// name a symbol other than its own (also weakref and alias attributes).
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: asm_label.metal:8:13: error: asm label '__mslsim_simd_exchange' renames a symbol, which MSL does not allow
#include <metal_stdlib>
extern "C" uint exchange(thread const void* value, thread void* lanes, uint size, constant char* file, uint line, uint column)
    __asm__("__mslsim_simd_exchange");

kernel void k(device float* out [[buffer(0)]]) {
  float x = 1.0f;
  exchange(&x, (thread void*)(ulong(out) - 65536), 4096, "f", 1, 1);
  out[0] = x;
}
