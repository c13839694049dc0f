// MLX's all_reduce (reduction/reduce_all.h): after a barrier, the first lanes take a partial from
// threadgroup memory and the others the operation's identity, a program-scope constant:
// `total = lid < simd_per_group ? shared_vals[lid] : op.init`. For bfloat the two loads become
// one load through a pointer selected between threadgroup memory and the constant; both are
// in range, and the checks must see them so (they reported "in no buffer" for every other lane).
#include <metal_stdlib>
using namespace metal;

struct Sum {
  static constexpr constant bfloat init = bfloat(0);
};

kernel void sum_rows(device const bfloat* in [[buffer(0)]], device bfloat* out [[buffer(1)]],
                     uint lid [[thread_position_in_threadgroup]],
                     uint gid [[threadgroup_position_in_grid]],
                     uint lanes [[threads_per_threadgroup]],
                     uint simd_per_group [[simdgroups_per_threadgroup]],
                     uint simd_lane [[thread_index_in_simdgroup]],
                     uint simd_group [[simdgroup_index_in_threadgroup]]) {
  threadgroup bfloat partials[32];
  bfloat total = simd_sum(in[gid * lanes + lid]);
  if (simd_lane == 0) partials[simd_group] = total;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  total = lid < simd_per_group ? partials[lid] : Sum::init;
  total = simd_sum(total);
  if (lid == 0) out[gid] = total;
}
