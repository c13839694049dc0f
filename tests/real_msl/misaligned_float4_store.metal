// ggml's kernel_mul_mm writes result rows through `device float4 *` at any row width
// (`ne0 % 4 != 0`), so the pointer is only 4-byte aligned; Apple GPUs execute it.
#include <metal_stdlib>
using namespace metal;
kernel void rows(device float * dst [[buffer(0)]], threadgroup char * shmem [[threadgroup(0)]],
                 ushort tid [[thread_index_in_threadgroup]]) {
    threadgroup float * t = (threadgroup float *) shmem;
    t[tid] = tid;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (tid < 4) {
        device float4 * d4 = (device float4 *) (dst + tid * 7);  // a 28-byte row pitch
        threadgroup float4 * c4 = (threadgroup float4 *) (t + tid * 8);
        *d4 = *c4;
    }
}
// ggml binds `setThreadgroupMemoryLength:0` for kernels that declare threadgroup memory they do
// not use; Metal accepts it.
kernel void unused_shmem(device float * d [[buffer(0)]], threadgroup char * shmem [[threadgroup(0)]],
                         uint i [[thread_position_in_grid]]) {
    d[i] = 2.0f;
}
