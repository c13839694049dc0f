// Shared by the library tests: CHECK macros and a deterministic fake SIMD-group driver.
//
// The fake driver runs a test body once per active lane, sequentially, several passes in a row.
// Each collective call records the lane's contribution under its call index and returns the
// contributions recorded so far for that call. Since a call's inputs depend only on earlier calls'
// results, after (number of collective calls + 1) passes every lane sees the values a real
// SIMD-group would, without threads. Bodies must be straight-line in collectives (no divergence).
#pragma once
#include <metal_stdlib>
extern "C" int printf(const char*, ...);

static int g_failures = 0;
#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); ++g_failures; } \
  } while (0)
#define CHECK_EQ_F(a, b) CHECK(__builtin_bit_cast(unsigned, float(a)) == __builtin_bit_cast(unsigned, float(b)))
#define TEST_RESULT() (printf(g_failures ? "%d failure(s)\n" : "all passed\n", g_failures), g_failures != 0)

namespace fake {
constexpr unsigned kMaxCalls = 64, kMaxBytes = 128;
static unsigned char table[kMaxCalls][32][kMaxBytes];
static unsigned lane, call, mask = 0xffffffffu;
static unsigned barriers, last_line;
static const char* last_file;
template <class F> void run(F body, unsigned active = 0xffffffffu, int passes = 12) {
  mask = active;
  for (int p = 0; p < passes; ++p)
    for (unsigned l = 0; l < 32; ++l)
      if ((active >> l) & 1u) { lane = l; call = 0; body(l); }
}
}  // namespace fake

extern "C" {
void __mslsim_threadgroup_barrier(unsigned, const char* file, unsigned line, unsigned) {
  ++fake::barriers; fake::last_file = file; fake::last_line = line;
}
void __mslsim_simdgroup_barrier(unsigned, const char* file, unsigned line, unsigned) {
  ++fake::barriers; fake::last_file = file; fake::last_line = line;
}
unsigned __mslsim_simd_exchange(const void* value, void* lanes, unsigned size, const char* file, unsigned line, unsigned) {
  if (fake::call >= fake::kMaxCalls || size > fake::kMaxBytes) { printf("fake driver overflow\n"); __builtin_trap(); }
  fake::last_file = file; fake::last_line = line;
  __builtin_memcpy(fake::table[fake::call][fake::lane], value, size);
  for (unsigned i = 0; i < 32; ++i) __builtin_memcpy((char*)lanes + i * size, fake::table[fake::call][i], size);
  ++fake::call;
  return fake::mask;
}
unsigned __mslsim_simd_lane(void) { return fake::lane; }
unsigned __mslsim_simd_inactive_read(unsigned, const char*, unsigned, unsigned) { return 0; }
}
