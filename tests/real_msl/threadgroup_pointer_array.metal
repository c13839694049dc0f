// A function-scope array of pointers to threadgroup memory (`threadgroup float* p[2]`, as ggml's
// helper_mv_reduce_and_write declares `threadgroup float * shmem_f32[NR0]`) is private to each
// thread: `threadgroup` qualifies the pointee. mslsim once placed the array itself in threadgroup
// memory, shared by the threadgroup: only the last thread's pointers survived, and --check all
// reported a write-write race on 'p'.
#include <metal_stdlib>
using namespace metal;

kernel void private_pointer_array(device float* out [[buffer(0)]], threadgroup float* shm [[threadgroup(0)]],
                                  uint tid [[thread_index_in_threadgroup]]) {
  threadgroup float* p[2];
  p[0] = shm + tid;
  p[1] = shm;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  *p[0] = float(tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = shm[tid] + (p[1] == shm ? 0.0f : 1000.0f);
}
