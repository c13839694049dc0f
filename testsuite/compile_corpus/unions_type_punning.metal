// Unions and byte-addressed type punning: float/uint views, ggml-style byte offsets into
// device char buffers, threadgroup buffers reinterpreted between element types.
#include <metal_stdlib>
using namespace metal;

union Bits {
  float f;
  uint u;
  half2 h;
  uchar4 b;
};

struct Params {
  uint64_t nb01;
  int32_t ne00;
  int32_t pad;
};

kernel void punning(device const char* src [[buffer(0)]],
                    device uint* out [[buffer(1)]],
                    constant Params& args [[buffer(2)]],
                    uint row [[threadgroup_position_in_grid]],
                    uint lid [[thread_position_in_threadgroup]]) {
  threadgroup uint scratch[64];
  device const float* x = (device const float*)(src + row * args.nb01);
  Bits b;
  b.f = x[lid % uint(args.ne00)];
  scratch[lid % 64] = b.u;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  threadgroup half* as_half = (threadgroup half*)scratch;
  threadgroup uchar* bytes = reinterpret_cast<threadgroup uchar*>(scratch);
  uint v = uint(as_half[lid % 128]) + bytes[lid % 256] + b.b.x;
  device const uchar4* words = (device const uchar4*)(src + 4 * lid);
  out[row * 64 + lid % 64] = v + words[0].w + as_type<uint>(b.h);
}
