#include <metal_stdlib>
using namespace metal;

// A template kernel with a threadgroup array sized by a template parameter and
// an `if constexpr` branch on the element type. Each threadgroup reverses its
// own block; the block length is the ACTUAL size of the threadgroup, so the
// partial edge group reverses only its own threads.
template <typename T, uint BLOCK>
[[kernel]] void block_reverse(
    device const T* in  [[buffer(0)]],
    device T*       out [[buffer(1)]],
    uint gid [[thread_position_in_grid]],
    uint lid [[thread_position_in_threadgroup]],
    uint tpg [[threads_per_threadgroup]])
{
    threadgroup T buf[BLOCK];
    buf[lid] = in[gid];
    threadgroup_barrier(mem_flags::mem_threadgroup);

    const T r = buf[tpg - 1 - lid];
    if constexpr (is_floating_point_v<T>) {
        out[gid] = r * T(0.5);
    } else {
        out[gid] = r >> 1;      // arithmetic shift of the signed value
    }
}

template [[host_name("block_reverse_f32")]] [[kernel]]
decltype(block_reverse<float, 128>) block_reverse<float, 128>;
template [[host_name("block_reverse_i32")]] [[kernel]]
decltype(block_reverse<int, 128>) block_reverse<int, 128>;
