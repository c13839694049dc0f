// ggml style: no [[buffer(n)]] at all (implicit numbering), a constant argument struct first,
// byte pointers with explicit strides, and int32_t/uint64_t fields.
#include <metal_stdlib>
using namespace metal;

typedef struct {
  int32_t ne00;
  int32_t ne01;
  uint64_t nb00;
  uint64_t nb01;
  uint64_t nb1;
  float scale;
} ggml_kargs_scale;

kernel void kernel_scale_rows(constant ggml_kargs_scale& args,
                              device const char* src0,
                              device char* dst,
                              uint3 tgpig [[threadgroup_position_in_grid]],
                              ushort tiisg [[thread_index_in_simdgroup]],
                              ushort3 ntg [[threads_per_threadgroup]]) {
  const int64_t i01 = tgpig.x;
  device const float* x = (device const float*)(src0 + i01 * args.nb01);
  device float* y = (device float*)(dst + i01 * args.nb1);
  for (int i00 = tiisg; i00 < args.ne00; i00 += ntg.x) y[i00] = x[i00] * args.scale;
}
