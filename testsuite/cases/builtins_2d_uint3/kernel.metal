#include <metal_stdlib>
using namespace metal;

// Every thread writes every dispatch built-in it can see, as uint3/uint, into a
// 25-word record at its linear grid position x + y*W + z*W*H (W, H from
// threads_per_grid). Record layout:
//   [0..2]  thread_position_in_grid        [3..5]   thread_position_in_threadgroup
//   [6..8]  threadgroup_position_in_grid   [9..11]  threads_per_threadgroup
//   [12..14] threadgroups_per_grid         [15..17] threads_per_grid
//   [18..20] dispatch_threads_per_threadgroup
//   [21] thread_index_in_threadgroup  [22] thread_index_in_simdgroup
//   [23] simdgroup_index_in_threadgroup  [24] threads_per_simdgroup
static constexpr constant uint REC = 25;

static inline void put3(device uint* rec, uint at, uint3 v)
{
    rec[at + 0] = v.x;
    rec[at + 1] = v.y;
    rec[at + 2] = v.z;
}

kernel void builtins_uint3(
    device uint* out [[buffer(0)]],
    uint3 pos    [[thread_position_in_grid]],
    uint3 lpos   [[thread_position_in_threadgroup]],
    uint3 tgpos  [[threadgroup_position_in_grid]],
    uint3 tptg   [[threads_per_threadgroup]],
    uint3 tgpg   [[threadgroups_per_grid]],
    uint3 tpgrid [[threads_per_grid]],
    uint3 dtptg  [[dispatch_threads_per_threadgroup]],
    uint  lidx   [[thread_index_in_threadgroup]],
    uint  lane   [[thread_index_in_simdgroup]],
    uint  sgidx  [[simdgroup_index_in_threadgroup]],
    uint  sgw    [[threads_per_simdgroup]])
{
    const uint slot = pos.x + tpgrid.x * (pos.y + tpgrid.y * pos.z);
    device uint* rec = out + slot * REC;
    put3(rec, 0, pos);
    put3(rec, 3, lpos);
    put3(rec, 6, tgpos);
    put3(rec, 9, tptg);
    put3(rec, 12, tgpg);
    put3(rec, 15, tpgrid);
    put3(rec, 18, dtptg);
    rec[21] = lidx;
    rec[22] = lane;
    rec[23] = sgidx;
    rec[24] = sgw;
}
