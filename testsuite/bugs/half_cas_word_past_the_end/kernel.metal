#include <metal_stdlib>
using namespace metal;

// Adds each thread's value to out[i % n], a half, with a compare-and-swap loop on the 32-bit word
// that holds it (Metal has no half atomics; MLX's scatter does the same).
// BUG: the output has an odd number of halves, so the word of the last element reaches 2 bytes
// past its end: the bounds check refuses the load and the compare-and-swap. (A refused
// compare-and-swap succeeds without writing, so the loop ends: before, it went round for ever.)
kernel void scatter_add_half(
    device const half* x   [[buffer(0)]],
    device half*       out [[buffer(1)]],
    constant uint&     n   [[buffer(2)]],
    uint i [[thread_position_in_grid]])
{
    uint k = i % n;
    device atomic_uint* word = (device atomic_uint*)((device uchar*)out + (k * 2 & ~3u));
    uint shift = (k * 2 & 2) * 8;
    uint expected = atomic_load_explicit(word, memory_order_relaxed);
    uint desired;
    do {
        half current = as_type<half>(ushort(expected >> shift));
        desired = (expected & ~(0xFFFFu << shift)) | (uint(as_type<ushort>(half(current + x[i]))) << shift);
    } while (!atomic_compare_exchange_weak_explicit(word, &expected, desired, memory_order_relaxed,
                                                    memory_order_relaxed));
}
