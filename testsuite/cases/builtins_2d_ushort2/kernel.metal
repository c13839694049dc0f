#include <metal_stdlib>
using namespace metal;

// Every thread writes every dispatch built-in, declared in the 16-bit forms
// (ushort2 for positions and sizes, ushort for the indices), into an 18-word
// record at its linear grid position x + y*W (W from threads_per_grid):
//   [0,1] thread_position_in_grid      [2,3]   thread_position_in_threadgroup
//   [4,5] threadgroup_position_in_grid [6,7]   threads_per_threadgroup
//   [8,9] threadgroups_per_grid        [10,11] threads_per_grid
//   [12,13] dispatch_threads_per_threadgroup
//   [14] thread_index_in_threadgroup  [15] thread_index_in_simdgroup
//   [16] simdgroup_index_in_threadgroup  [17] threads_per_simdgroup
static constexpr constant uint REC = 18;

static inline void put2(device uint* rec, uint at, ushort2 v)
{
    const uint2 w = uint2(v);
    rec[at + 0] = w.x;
    rec[at + 1] = w.y;
}

kernel void builtins_ushort2(
    device uint* out [[buffer(0)]],
    ushort2 pos    [[thread_position_in_grid]],
    ushort2 lpos   [[thread_position_in_threadgroup]],
    ushort2 tgpos  [[threadgroup_position_in_grid]],
    ushort2 tptg   [[threads_per_threadgroup]],
    ushort2 tgpg   [[threadgroups_per_grid]],
    ushort2 tpgrid [[threads_per_grid]],
    ushort2 dtptg  [[dispatch_threads_per_threadgroup]],
    ushort  lidx   [[thread_index_in_threadgroup]],
    ushort  lane   [[thread_index_in_simdgroup]],
    ushort  sgidx  [[simdgroup_index_in_threadgroup]],
    ushort  sgw    [[threads_per_simdgroup]])
{
    const uint slot = uint(pos.x) + uint(tpgrid.x) * uint(pos.y);
    device uint* rec = out + slot * REC;
    put2(rec, 0, pos);
    put2(rec, 2, lpos);
    put2(rec, 4, tgpos);
    put2(rec, 6, tptg);
    put2(rec, 8, tgpg);
    put2(rec, 10, tpgrid);
    put2(rec, 12, dtptg);
    rec[14] = lidx;
    rec[15] = lane;
    rec[16] = sgidx;
    rec[17] = sgw;
}
