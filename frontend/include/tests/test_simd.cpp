// SIMD-group and quad-group lane semantics, barrier call sites and atomics, on the fake driver.
#include "mslsim_test.h"
using namespace metal;

static float r_sum[32], r_incl[32], r_excl[32], r_down[32], r_up[32], r_xor[32], r_shuf[32], r_rot[32];
static float r_max[32], r_quad[32], r_first[32], r_fillup[32], r_filldown[32], r_qdown[32];
static int r_iprod[32], r_and[32];
static half r_hsum[32];
static float2 r_vsum[32];
static uint64_t r_ballot[32];
static bool r_all[32], r_any[32], r_isfirst[32];

extern "C" int main() {  // extern "C": -ffreestanding does not special-case main
  auto body = [](unsigned lane) {
    float x = float(lane + 1);
    r_sum[lane] = simd_sum(x);
    r_incl[lane] = simd_prefix_inclusive_sum(x);
    r_excl[lane] = simd_prefix_exclusive_sum(x);
    r_down[lane] = simd_shuffle_down(x, 4);
    r_up[lane] = simd_shuffle_up(x, 3);
    r_xor[lane] = simd_shuffle_xor(x, 1);
    r_shuf[lane] = simd_shuffle(x, 31 - lane);
    r_rot[lane] = simd_shuffle_rotate_down(x, 1);
    r_max[lane] = simd_max(x);
    r_quad[lane] = quad_sum(x);
    r_qdown[lane] = quad_shuffle_down(x, 1);
    r_first[lane] = simd_broadcast_first(x);
    r_fillup[lane] = simd_shuffle_and_fill_up(x, -x, 2, 8);
    r_filldown[lane] = simd_shuffle_and_fill_down(x, -x, 2);
    r_iprod[lane] = simd_prefix_exclusive_product(lane % 3 == 0 ? 2 : 1);
    r_and[lane] = simd_and(int(lane | 0x100));
    r_hsum[lane] = simd_sum(half(2048.0f16 * (lane == 0) + 1.0f16 * (lane != 0)));
    r_vsum[lane] = simd_sum(float2(x, 1).yx);
    r_ballot[lane] = uint64_t(simd_ballot(lane % 2 == 0));
    r_all[lane] = simd_all(x > 0);
    r_any[lane] = simd_any(lane == 5);
    r_isfirst[lane] = simd_is_first();
  };
  fake::run(body);
  for (unsigned l = 0; l < 32; ++l) {
    float x = float(l + 1);
    CHECK(r_sum[l] == 528.0f);
    CHECK(r_incl[l] == x * (x + 1) / 2 && r_excl[l] == (x - 1) * x / 2);
    CHECK(r_down[l] == (l + 4 < 32 ? x + 4 : x));  // out of range keeps the lane's own value
    CHECK(r_up[l] == (l >= 3 ? x - 3 : x));
    CHECK(r_xor[l] == float((l ^ 1) + 1) && r_shuf[l] == float(32 - l) && r_rot[l] == float((l + 1) % 32 + 1));
    CHECK(r_max[l] == 32.0f && r_first[l] == 1.0f);
    unsigned q = l & ~3u;
    CHECK(r_quad[l] == float(4 * q + 10));
    CHECK(r_qdown[l] == ((l & 3) < 3 ? x + 1 : x));
    unsigned seg = l & ~7u, k = l & 7u;  // modulo 8 segments
    CHECK(r_fillup[l] == (k >= 2 ? float(l - 2 + 1) : -float(seg + k + 8 - 2 + 1)));
    CHECK(r_filldown[l] == (l + 2 < 32 ? float(l + 2 + 1) : -float(l + 2 - 32 + 1)));
    unsigned twos = 0;
    for (unsigned i = 0; i < l; ++i) twos += i % 3 == 0;
    CHECK(r_iprod[l] == (1 << twos));
    CHECK(r_and[l] == 0x100);
    // Pairwise, rounded per addition: lane 0's 2048 + 1 rounds to 2048 in half (ties to even),
    // the other pairs are exact (2, then 2048 + 2 + 4 + 8 + 16). Lane order would have kept 2048,
    // the exact sum is 2079.
    CHECK(float(r_hsum[l]) == 2078.0f);
    CHECK(all(r_vsum[l] == float2(32, 528)));
    CHECK(r_ballot[l] == 0x55555555u && r_all[l] && r_any[l] && r_isfirst[l] == (l == 0));
  }
  // Partially active SIMD-group: only lanes 4..11 run; reductions and broadcasts see only them,
  // and reading an inactive lane yields 0.
  fake::run([](unsigned lane) {
    float x = float(lane);
    r_sum[lane] = simd_sum(x);
    r_first[lane] = simd_broadcast_first(x);
    r_down[lane] = simd_shuffle_down(x, 8);
    r_excl[lane] = simd_prefix_exclusive_sum(x);
    r_ballot[lane] = uint64_t(simd_active_threads_mask());
    r_isfirst[lane] = simd_is_first();
  }, 0x00000ff0u);
  for (unsigned l = 4; l < 12; ++l) {
    CHECK(r_sum[l] == 60.0f && r_first[l] == 4.0f && r_down[l] == 0.0f);
    float e = 0;
    for (unsigned i = 4; i < l; ++i) e += float(i);
    CHECK(r_excl[l] == e && r_ballot[l] == 0xff0u && r_isfirst[l] == (l == 4));
  }
  // Barriers report the caller's line.
  unsigned line = __LINE__ + 1;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  CHECK(fake::last_line == line && fake::barriers == 1);
  fake::run([](unsigned) { r_sum[0] = simd_sum(1.0f); }, 1u, 1);
  CHECK(fake::last_line == __LINE__ - 1);

  // Atomics (single-threaded here: checks the interface and values, not concurrency).
  uint ubuf[2] = {5, 0};
  device atomic_uint* au = reinterpret_cast<device atomic_uint*>(ubuf);
  CHECK(atomic_fetch_add_explicit(au, 3, memory_order_relaxed) == 5 && ubuf[0] == 8);
  CHECK(atomic_fetch_max_explicit(au, 100u, memory_order_relaxed) == 8 && ubuf[0] == 100);
  CHECK(atomic_fetch_min_explicit(au, 7u, memory_order_relaxed) == 100 && ubuf[0] == 7);
  uint expected = 6;
  CHECK(!atomic_compare_exchange_weak_explicit(au, &expected, 1u, memory_order_relaxed, memory_order_relaxed) && expected == 7);
  bool swapped = false;
  for (int i = 0; i < 100 && !swapped; ++i)  // weak CAS may fail spuriously
    swapped = atomic_compare_exchange_weak_explicit(au, &expected, 1u, memory_order_relaxed, memory_order_relaxed);
  CHECK(swapped && ubuf[0] == 1);
  CHECK(atomic_exchange_explicit(au, 9u, memory_order_relaxed) == 1 && atomic_load_explicit(au, memory_order_relaxed) == 9);
  float fbuf[1] = {1.5f};
  device atomic<float>* af = reinterpret_cast<device atomic<float>*>(fbuf);
  CHECK(atomic_fetch_add_explicit(af, 2.0f, memory_order_relaxed) == 1.5f && fbuf[0] == 3.5f);
  CHECK(atomic_fetch_sub_explicit(af, 0.5f, memory_order_relaxed) == 3.5f && fbuf[0] == 3.0f);
  threadgroup atomic_int ai;
  atomic_store_explicit(&ai, -4, memory_order_relaxed);
  CHECK(atomic_fetch_or_explicit(&ai, 1, memory_order_relaxed) == -4 && atomic_load_explicit(&ai, memory_order_relaxed) == -3);
  ulong lbuf[1] = {10};
  device atomic_ulong* al = reinterpret_cast<device atomic_ulong*>(lbuf);
  atomic_max_explicit(al, 1ul << 40, memory_order_relaxed);
  CHECK(lbuf[0] == 1ul << 40);
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst);
  return TEST_RESULT();
}
