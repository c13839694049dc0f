#include <metal_stdlib>
using namespace metal;

// Every thread writes every dispatch built-in, declared as ushort3/ushort,
// into a 25-word record at its linear grid position x + y*W + z*W*H:
//   [0..2]  thread_position_in_grid        [3..5]   thread_position_in_threadgroup
//   [6..8]  threadgroup_position_in_grid   [9..11]  threads_per_threadgroup
//   [12..14] threadgroups_per_grid         [15..17] threads_per_grid
//   [18..20] dispatch_threads_per_threadgroup
//   [21] thread_index_in_threadgroup  [22] thread_index_in_simdgroup
//   [23] simdgroup_index_in_threadgroup  [24] threads_per_simdgroup
static constexpr constant uint REC = 25;

static inline void put3(device uint* rec, uint at, ushort3 v)
{
    const uint3 w = uint3(v);
    rec[at + 0] = w.x;
    rec[at + 1] = w.y;
    rec[at + 2] = w.z;
}

kernel void builtins_ushort3(
    device uint* out [[buffer(0)]],
    ushort3 pos    [[thread_position_in_grid]],
    ushort3 lpos   [[thread_position_in_threadgroup]],
    ushort3 tgpos  [[threadgroup_position_in_grid]],
    ushort3 tptg   [[threads_per_threadgroup]],
    ushort3 tgpg   [[threadgroups_per_grid]],
    ushort3 tpgrid [[threads_per_grid]],
    ushort3 dtptg  [[dispatch_threads_per_threadgroup]],
    ushort  lidx   [[thread_index_in_threadgroup]],
    ushort  lane   [[thread_index_in_simdgroup]],
    ushort  sgidx  [[simdgroup_index_in_threadgroup]],
    ushort  sgw    [[threads_per_simdgroup]])
{
    const uint slot = uint(pos.x) + uint(tpgrid.x) * (uint(pos.y) + uint(tpgrid.y) * uint(pos.z));
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
